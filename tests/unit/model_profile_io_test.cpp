// Machine profiles as JSON: a written profile reads back the same; damaged files are refused
// with the field named; the built-in default is usable.
#include "support/dev_box_profile.hpp"
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "comm/profile_io.hpp"

namespace {

using namespace commpress;

model::MachineProfile sample_profile() {
  model::MachineProfile m;
  m.origin = "test";
  m.network.eager = {1.5e-6, 2.5e-10};
  m.network.rendezvous = {4e-6, 1e-10};
  m.network.switch_bytes = 4097;
  m.network.overlap_bytes = 32768;
  m.intra_node = m.network;
  m.network.measured = {{1024, 2e-6}, {8192, 3.5e-6}, {2097152, 2.2e-4}};
  m.gamma = 3e-10;
  m.ranks_per_node = 2;
  m.threads_per_rank = 1;
  m.codec_oversubscription = 2;
  m.oversubscribed_wait = 5e-5;
  m.codecs = {{"szp", codec::Dtype::f32, 4e9, 5e9, 6e9, 4.5e9, 2e-6, 7.5},
              {"zstd-1", codec::Dtype::f64, 4e8, 9e8, 0, 0, 1e-5, 1.2}};
  m.reduce_scatter_mpi = {4, {{65536, 1.25}, {1048576, 1.5}, {8388608, 2.5}}};
  m.bcast_mpi = {3, {{65536, 0.75}}};
  m.allreduce_mpi = {4, {{131072, 1.75}, {2097152, 1.4}}};
  m.allgather_mpi = {4, {{131072, 1.1}}};
  m.bcast_window_mpi = {2, {{4194304, 0.5}}};
  return m;
}

TEST(ModelProfileIo, RoundTrip) {
  const model::MachineProfile m = sample_profile();
  auto back = comm::profile_from_json(comm::profile_to_json(m));
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(back->origin, "test");
  EXPECT_DOUBLE_EQ(back->network.eager.alpha, 1.5e-6);
  EXPECT_DOUBLE_EQ(back->network.rendezvous.beta, 1e-10);
  EXPECT_DOUBLE_EQ(back->network.switch_bytes, 4097);
  EXPECT_DOUBLE_EQ(back->network.overlap_bytes, 32768);
  ASSERT_EQ(back->network.measured.size(), 3u);
  EXPECT_DOUBLE_EQ(back->network.measured[1].bytes, 8192);
  EXPECT_DOUBLE_EQ(back->network.measured[1].seconds, 3.5e-6);
  ASSERT_TRUE(back->intra_node.has_value());
  EXPECT_DOUBLE_EQ(back->intra_node->overlap_bytes, 32768);
  EXPECT_TRUE(back->intra_node->measured.empty());
  EXPECT_FALSE(back->switch_link.has_value());  // one network
  EXPECT_EQ(back->switch_nodes, 0);
  EXPECT_DOUBLE_EQ(back->gamma, 3e-10);
  EXPECT_EQ(back->ranks_per_node, 2);
  EXPECT_DOUBLE_EQ(back->codec_oversubscription, 2);
  EXPECT_DOUBLE_EQ(back->oversubscribed_wait, 5e-5);
  ASSERT_EQ(back->codecs.size(), 2u);
  const model::CodecRates* z = back->rates("zstd-1", codec::Dtype::f64);
  ASSERT_NE(z, nullptr);
  EXPECT_DOUBLE_EQ(z->decompress, 9e8);
  EXPECT_DOUBLE_EQ(z->typical_ratio, 1.2);
  EXPECT_EQ(back->rates("zstd-1", codec::Dtype::f32), nullptr);
  EXPECT_EQ(back->reduce_scatter_mpi.ranks, 4);
  ASSERT_EQ(back->reduce_scatter_mpi.points.size(), 3u);
  EXPECT_DOUBLE_EQ(back->reduce_scatter_mpi.points[2].block_bytes, 8388608);
  EXPECT_DOUBLE_EQ(back->reduce_scatter_mpi.points[2].slowdown, 2.5);
  EXPECT_EQ(back->bcast_mpi.ranks, 3);
  ASSERT_EQ(back->bcast_mpi.points.size(), 1u);
  EXPECT_DOUBLE_EQ(back->bcast_mpi.points[0].slowdown, 0.75);
  EXPECT_EQ(back->allreduce_mpi.ranks, 4);
  ASSERT_EQ(back->allreduce_mpi.points.size(), 2u);
  EXPECT_DOUBLE_EQ(back->allreduce_mpi.points[1].slowdown, 1.4);
  ASSERT_EQ(back->allgather_mpi.points.size(), 1u);
  EXPECT_DOUBLE_EQ(back->allgather_mpi.points[0].slowdown, 1.1);
  EXPECT_EQ(back->bcast_window_mpi.ranks, 2);
  ASSERT_EQ(back->bcast_window_mpi.points.size(), 1u);
  EXPECT_DOUBLE_EQ(back->bcast_window_mpi.points[0].block_bytes, 4194304);
}

std::string with(const std::string& text, const std::string& from, const std::string& to) {
  std::string s = text;
  size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

void expect_refused(const std::string& text, const std::string& mentions) {
  auto m = comm::profile_from_json(text);
  ASSERT_FALSE(m.ok()) << mentions;
  EXPECT_EQ(m.status().code(), ErrorCode::invalid_argument);
  EXPECT_NE(m.status().message().find(mentions), std::string::npos) << m.status().message();
}

// A network of switches (bench/scale's fat-tree): the link under one switch and its nodes.
TEST(ModelProfileIo, SwitchesRoundTrip) {
  model::MachineProfile m = sample_profile();
  m.switch_link = m.network;
  m.switch_link->eager.alpha = 0.5e-6;
  m.switch_nodes = 16;
  auto back = comm::profile_from_json(comm::profile_to_json(m));
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  ASSERT_TRUE(back->switch_link.has_value());
  EXPECT_DOUBLE_EQ(back->switch_link->eager.alpha, 0.5e-6);
  EXPECT_EQ(back->switch_link->measured.size(), 3u);
  EXPECT_EQ(back->switch_nodes, 16);
  // The link measured before a layout gives its switches' nodes (bench/scale's base profile).
  m.switch_nodes = 0;
  back = comm::profile_from_json(comm::profile_to_json(m));
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_TRUE(back->switch_link.has_value());
  EXPECT_EQ(back->switch_nodes, 0);
}

TEST(ModelProfileIo, DamagedProfilesAreRefused) {
  const std::string good = comm::profile_to_json(sample_profile());
  expect_refused("{ not json", "not valid JSON");
  expect_refused("[1, 2]", "commpress-machine-profile");
  expect_refused(with(good, "\"version\": 1", "\"version\": 7"), "version");
  expect_refused(with(good, "\"gamma\"", "\"gamma_typo\""), "gamma");
  expect_refused(with(good, "\"switch_bytes\": 4097.0", "\"switch_bytes\": -1"), "switch_bytes");
  expect_refused(with(good, "\"dtype\": \"f64\"", "\"dtype\": \"f16\""), "codecs[1]");
  expect_refused(with(good, "\"compress\": 4000000000.0", "\"compress\": \"fast\""),
                 "codecs[0].compress");
  // Block sizes must increase (the model interpolates between them).
  expect_refused(with(good, "1048576.0", "8388608.0"),
                 "reduce_scatter_mpi.block_bytes_slowdown[2]");
  expect_refused(with(good, "1.25", "-1.25"), "reduce_scatter_mpi.block_bytes_slowdown[0]");
  // A link's measured times: sizes increasing, times positive.
  expect_refused(with(good, "8192.0", "512.0"), "network.measured[1]");
  expect_refused(with(good, "3.5e-06", "0.0"), "network.measured[1]");
}

TEST(ModelProfileIo, ProfilesBeforeTheOverlapProbeAssumeNone) {
  std::string text = comm::profile_to_json(sample_profile());
  for (size_t at; (at = text.find(",\n    \"overlap_bytes\": 32768.0")) != std::string::npos;)
    text.erase(at, std::string(",\n    \"overlap_bytes\": 32768.0").size());
  ASSERT_EQ(text.find("overlap_bytes"), std::string::npos) << text;
  auto back = comm::profile_from_json(text);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(back->network.overlap_bytes, 0);
  // Nor does it know the oversubscribed wait unless it measured one.
  model::MachineProfile unmeasured = sample_profile();
  unmeasured.oversubscribed_wait = -1;
  const std::string without = comm::profile_to_json(unmeasured);
  EXPECT_EQ(without.find("oversubscribed_wait"), std::string::npos);
  auto old = comm::profile_from_json(without);
  ASSERT_TRUE(old.ok()) << old.status().to_string();
  EXPECT_LT(old->oversubscribed_wait, 0);
  // Nor MPI's reduce_scatter against the plain ring.
  unmeasured.reduce_scatter_mpi = {};
  unmeasured.bcast_mpi = {};
  auto before = comm::profile_from_json(comm::profile_to_json(unmeasured));
  ASSERT_TRUE(before.ok()) << before.status().to_string();
  EXPECT_EQ(before->reduce_scatter_mpi.ranks, 0);
  EXPECT_EQ(before->reduce_scatter_mpi.at(4, 1e6), 0);
  EXPECT_EQ(before->bcast_mpi.ranks, 0);
  expect_refused(with(comm::profile_to_json(sample_profile()), "\"overlap_bytes\": 32768.0",
                      "\"overlap_bytes\": -2"),
                 "overlap_bytes");
}

TEST(ModelProfileIo, MissingFileIsAnIoError) {
  auto m = comm::load_profile("/nonexistent/commpress-profile.json");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), ErrorCode::io);
}

TEST(ModelProfileIo, DefaultProfileIsComplete) {
  const model::MachineProfile m = commpress::testing::dev_box_profile();
  EXPECT_FALSE(m.origin.empty());
  EXPECT_GT(m.network.rendezvous.beta, 0);
  EXPECT_GT(m.gamma, 0);
  const model::CodecRates* szp = m.rates("szp", codec::Dtype::f32);
  ASSERT_NE(szp, nullptr);
  EXPECT_GT(szp->compress, 0);
  EXPECT_GT(szp->combine_raw, 0);
  auto back = comm::profile_from_json(comm::profile_to_json(m));
  ASSERT_TRUE(back.ok()) << back.status().to_string();
}

}  // namespace
