#pragma once
// The IDEA ladder's rung table: what each rung of the APOD ladder runs, as plain data, and the
// default rung per GPU architecture (idea_rungs.cpp). Callers name rungs (wk/cipher/idea.hpp);
// the engine and the executor read their row here.
#include <span>
#include <string_view>

#include "wk/cipher/idea.hpp"
#include "wk/core/rung.hpp"

namespace wk::cipher::detail {

// How a rung moves a host->host run through one GPU.
enum class IdeaCopies {
  synchronous_with_output,  // every copy waits for its completion; the output buffer is uploaded too
  synchronous,              // every copy waits for its completion, one stream
  overlapped,               // chunks round-robin over streams from pinned memory, copies overlap kernels
};

struct IdeaRung {
  RungInfo info;
  IdeaCopies copies;
  bool deploy;  // every listed GPU at once, plus an optional CPU share (else one GPU)
  IdeaKernelConfig kernel;
  IdeaStreaming streaming;
};

std::span<const IdeaRung> idea_rung_table();

// The row named `name`, or the default rung's for the current CUDA device when `name` is empty.
// Throws wk::Error{usage} naming the rungs for an unknown name.
const IdeaRung& idea_rung(std::string_view name);

}  // namespace wk::cipher::detail
