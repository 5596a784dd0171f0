#include "wk/core/nvtx.hpp"

#include <nvtx3/nvToolsExt.h>

namespace wk::nvtx {

namespace {
nvtxDomainHandle_t domain() {
  static const nvtxDomainHandle_t d = nvtxDomainCreateA("warpkit");
  return d;
}
}  // namespace

void push(const char* name, Color color, std::int64_t payload) {
  nvtxEventAttributes_t attr{};
  attr.version = NVTX_VERSION;
  attr.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attr.colorType = NVTX_COLOR_ARGB;
  attr.color = static_cast<std::uint32_t>(color);
  attr.messageType = NVTX_MESSAGE_TYPE_ASCII;
  attr.message.ascii = name;
  if (payload >= 0) {
    attr.payloadType = NVTX_PAYLOAD_TYPE_INT64;
    attr.payload.llValue = payload;
  }
  nvtxDomainRangePushEx(domain(), &attr);
}

void pop() { nvtxDomainRangePop(domain()); }

}  // namespace wk::nvtx
