// Which source files are lazax's machinery, skipped when saved_residuals says where a value was
// made (trace/call_site.h): lazax's headers wherever they are installed and its sources, but not
// the nn layer's, which say where in a model a value was made; paths that a line table gives
// relative to a build directory are normalized first.
#include "lazax/trace/call_site.h"

#include <gtest/gtest.h>

#include <string>

using lazax::detail::lazax_internal_file;

TEST(CallSite, LazaxsOwnFilesAreSkippedAndTheUsersAreNot) {
  const std::string root = LAZAX_SOURCE_DIR;
  EXPECT_TRUE(lazax_internal_file(root + "/src/api/ops_everyday.cc"));
  EXPECT_TRUE(lazax_internal_file(root + "/build-asan/../src/trace/graph.cc"));
  EXPECT_TRUE(lazax_internal_file(root + "/include/lazax/api/tensor.h"));
  EXPECT_TRUE(lazax_internal_file("/opt/lazax/include/lazax/autodiff/remat.h"));
  EXPECT_TRUE(lazax_internal_file(root + "/build/layer_include/api/lazax/api/tensor.h"));
  EXPECT_TRUE(lazax_internal_file("/usr/include/c++/12/bits/std_function.h"));
  EXPECT_TRUE(lazax_internal_file("/tmp/build/../../usr/include/c++/12/bits/invoke.h"));
  EXPECT_TRUE(lazax_internal_file("/elsewhere/lazax-copy/src/trace/graph.cc"));  // same sources
  EXPECT_FALSE(lazax_internal_file("/elsewhere/lazax-copy/src/trace/no_such_file.cc"));
  EXPECT_FALSE(lazax_internal_file(root + "/src/nn/llama.cc"));
  EXPECT_FALSE(lazax_internal_file("/opt/lazax/include/lazax/nn/llama.h"));
  EXPECT_FALSE(lazax_internal_file(root + "/build/../tests/pure/remat_test.cc"));
  EXPECT_FALSE(lazax_internal_file("/home/me/model/src/api/handlers.cc"));
  EXPECT_FALSE(lazax_internal_file("/home/me/mylazax/model.cc"));
  EXPECT_FALSE(lazax_internal_file("model.cc"));
}
