// operator<< of Tensor: the dtype, shape and values of materialized and pending tensors (a pending
// one is synced first), and the undefined tensor.
#include <sstream>

#include "api_test_util.h"

using namespace lazax;

namespace {
std::string printed(const Tensor& t) {
  std::ostringstream s;
  s << t;
  return s.str();
}
}  // namespace

TEST(Print, ShowsDtypeShapeAndValues) {
  EXPECT_EQ(printed(from_vector<float>({1.5f, -2, 0}, {3})), "Tensor(f32[3] [1.5, -2, 0])");
  Tensor pending = from_vector<int64_t>({1, 2, 3, 4}, {2, 2}) * scalar_tensor(3, DType::i64);
  ASSERT_TRUE(pending.is_pending());
  EXPECT_EQ(printed(pending), "Tensor(i64[2,2] [3, 6, 9, 12])");
  EXPECT_EQ(printed(scalar_tensor(1, DType::boolean)), "Tensor(bool[] [1])");
  EXPECT_EQ(printed(zeros({0, 2}, DType::bf16)), "Tensor(bf16[0,2] [])");
  EXPECT_EQ(printed(Tensor()), "Tensor(undefined)");
}
