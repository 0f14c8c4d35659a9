// The SwiGLU MLP block of decoder_stablehlo_mlp.cc as JAX exports it:
//   def mlp(h, w_gate, w_up, w_down):
//     return (jax.nn.silu(h @ w_gate) * (h @ w_up)) @ w_down
//   jax.jit(mlp).lower(h, w_gate, w_up, w_down).as_text()   # h: f32[32, 16], hidden 32
// (written by hand from the StableHLO specification in that form: no JAX on this machine).
module @jit_mlp attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<32x16xf32> {mhlo.layout_mode = "default"}, %arg1: tensor<16x32xf32> {mhlo.layout_mode = "default"}, %arg2: tensor<16x32xf32> {mhlo.layout_mode = "default"}, %arg3: tensor<32x16xf32> {mhlo.layout_mode = "default"}) -> (tensor<32x16xf32> {jax.result_info = "", mhlo.layout_mode = "default"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32x16xf32>, tensor<16x32xf32>) -> tensor<32x32xf32> loc(#loc5)
    %1 = call @silu(%0) : (tensor<32x32xf32>) -> tensor<32x32xf32> loc(#loc6)
    %2 = stablehlo.dot_general %arg0, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32x16xf32>, tensor<16x32xf32>) -> tensor<32x32xf32> loc(#loc7)
    %3 = stablehlo.multiply %1, %2 : tensor<32x32xf32> loc(#loc8)
    %4 = stablehlo.dot_general %3, %arg3, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32x32xf32>, tensor<32x16xf32>) -> tensor<32x16xf32> loc(#loc9)
    return %4 : tensor<32x16xf32> loc(#loc)
  } loc(#loc)
  func.func private @silu(%arg0: tensor<32x32xf32>) -> tensor<32x32xf32> {
    %0 = stablehlo.logistic %arg0 : tensor<32x32xf32> loc(#loc10)
    %1 = stablehlo.multiply %arg0, %0 : tensor<32x32xf32> loc(#loc11)
    return %1 : tensor<32x32xf32> loc(#loc6)
  } loc(#loc6)
} loc(#loc)
#loc = loc(unknown)
#loc1 = loc("mlp.py":4:0)
#loc2 = loc("mlp.py":5:0)
#loc5 = loc("jit(mlp)/jit(main)/dot_general"(#loc1))
#loc6 = loc("jit(mlp)/jit(main)/silu"(#loc2))
#loc7 = loc("jit(mlp)/jit(main)/dot_general"(#loc2))
#loc8 = loc("jit(mlp)/jit(main)/mul"(#loc2))
#loc9 = loc("jit(mlp)/jit(main)/dot_general"(#loc2))
#loc10 = loc("jit(mlp)/jit(main)/silu/logistic"(#loc2))
#loc11 = loc("jit(mlp)/jit(main)/silu/mul"(#loc2))
