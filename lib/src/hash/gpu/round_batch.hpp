#pragma once
// The round engine's device batch, shared by the methods whose rounds have md5crypt's structure
// (md5crypt, sha256crypt, sha512crypt): jobs packed by kernel configuration and length, the
// set-up / round / final launches of the method's kernels (ShaKernels, from its .cu) in launch
// parts on streams of their own.
#include <array>
#include <memory>

#include "method_batch.hpp"

namespace wk::hash::gpu {

// The round engine's rungs (crypt_gpu.hpp describes them); blocks_shared is the fastest measured.
inline constexpr std::array<VariantInfo, 4> kRoundVariants{{
    {Variant::reference, "reference", "host code ported: byte-streaming hasher per round, local memory, input order"},
    {Variant::blocks_unsorted, "blocks_unsorted", "rounds as register blocks from global templates, input order"},
    {Variant::blocks_global, "blocks_global", "register blocks, global templates, grouped by length"},
    {Variant::blocks_shared, "blocks_shared", "register blocks, shared-memory templates, grouped by length"},
}};

// A method's batch on the round engine with its kernels (GpuMethod::make_batch).
std::unique_ptr<MethodBatch> make_round_batch(BatchCore& core, const detail::ShaKernels& kernels);

}  // namespace wk::hash::gpu
