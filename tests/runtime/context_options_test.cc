// Context::set_options applies each field to the layer that owns it, and a bad one changes nothing.
#include <gtest/gtest.h>

#include "lazax/core/buffer.h"
#include "lazax/core/error.h"
#include "lazax/runtime/context.h"
#include "lazax/trace/call_site.h"

using namespace lazax;

namespace {

TEST(ContextOptions, SetOptionsReachesEveryLayer) {
  Context& ctx = Context::get();
  const Options before = ctx.options();
  Options o = before;
  o.backend = "reference";
  o.buffer_cache_bytes = 12345;
  o.call_sites = true;
  ctx.set_options(o);
  EXPECT_EQ(ctx.backend().name(), "reference");
  EXPECT_EQ(buffer_cache_limit(), 12345);
  EXPECT_TRUE(call_sites_enabled());
  EXPECT_EQ(ctx.options().backend, "reference");
  ctx.set_options(before);
  EXPECT_EQ(ctx.backend().name(), before.backend);
  EXPECT_EQ(call_sites_enabled(), before.call_sites);
  EXPECT_NE(buffer_cache_limit(), 12345);
}

TEST(ContextOptions, AnUnknownBackendChangesNothing) {
  Context& ctx = Context::get();
  const Options before = ctx.options();
  Options o = before;
  o.backend = "tpu";
  o.call_sites = !before.call_sites;
  EXPECT_THROW(ctx.set_options(o), ValueError);
  EXPECT_EQ(ctx.backend().name(), before.backend);
  EXPECT_EQ(ctx.options().backend, before.backend);
  EXPECT_EQ(call_sites_enabled(), before.call_sites);
}

}  // namespace
