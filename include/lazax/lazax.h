// The one header a user includes: tensors and their ops, random numbers, autograd, the JAX-style
// transforms, pure functions, staged control flow, the nn modules, optimizers, learning-rate
// schedules and checkpoints.
#pragma once
#include "lazax/api/random.h"
#include "lazax/api/tensor.h"
#include "lazax/autodiff/check_grads.h"
#include "lazax/autodiff/control_flow.h"
#include "lazax/autodiff/pure.h"
#include "lazax/autodiff/remat.h"
#include "lazax/autodiff/transforms.h"
#include "lazax/autodiff/tree.h"
#include "lazax/nn/layers.h"
#include "lazax/nn/llama.h"
#include "lazax/nn/module.h"
#include "lazax/nn/scan_layers.h"
#include "lazax/optim/adamw.h"
#include "lazax/optim/checkpoint.h"
#include "lazax/optim/clip_grad.h"
#include "lazax/optim/schedule.h"
#include "lazax/optim/sgd.h"
