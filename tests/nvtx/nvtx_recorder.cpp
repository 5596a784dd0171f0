// An NVTX injection library for tests: loaded by NVTX3 through NVTX_INJECTION64_PATH, it records
// every range pushed/popped or started/ended (any domain) to the file named by WK_NVTX_LOG,
// one tab-separated line per event:
//   push  DOMAIN  NAME  PAYLOAD  TID        pop    DOMAIN  TID
//   start DOMAIN  NAME  PAYLOAD  TID  ID    end    DOMAIN  TID  ID
// DOMAIN is "-" for NVTX's default domain; PAYLOAD is "-" when none was given.
#include <nvtx3/nvToolsExt.h>

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

namespace {

struct Domain {
  std::string name;
};

std::mutex g_mutex;
FILE* g_log = nullptr;
std::atomic<unsigned long long> g_next_range_id{1};

long tid() { return static_cast<long>(::syscall(SYS_gettid)); }

const char* domain_name(nvtxDomainHandle_t d) {
  return d ? reinterpret_cast<Domain*>(d)->name.c_str() : "-";
}

std::string message_of(const nvtxEventAttributes_t* a) {
  if (!a) return "";
  if (a->messageType == NVTX_MESSAGE_TYPE_ASCII && a->message.ascii) return a->message.ascii;
  return "?";
}

std::string payload_of(const nvtxEventAttributes_t* a) {
  if (!a) return "-";
  switch (a->payloadType) {
    case NVTX_PAYLOAD_TYPE_INT64: return std::to_string(a->payload.llValue);
    case NVTX_PAYLOAD_TYPE_UNSIGNED_INT64: return std::to_string(a->payload.ullValue);
    case NVTX_PAYLOAD_TYPE_INT32: return std::to_string(a->payload.iValue);
    case NVTX_PAYLOAD_TYPE_UNSIGNED_INT32: return std::to_string(a->payload.uiValue);
    default: return "-";
  }
}

void write_line(const std::string& line) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!g_log) return;
  std::fputs(line.c_str(), g_log);
  std::fputc('\n', g_log);
  std::fflush(g_log);
}

nvtxDomainHandle_t NVTX_API domain_create(const char* name) {
  return reinterpret_cast<nvtxDomainHandle_t>(new Domain{name ? name : ""});
}

int NVTX_API domain_push(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) {
  write_line("push\t" + std::string(domain_name(d)) + "\t" + message_of(a) + "\t" + payload_of(a) + "\t" + std::to_string(tid()));
  return 0;
}

int NVTX_API domain_pop(nvtxDomainHandle_t d) {
  write_line("pop\t" + std::string(domain_name(d)) + "\t" + std::to_string(tid()));
  return 0;
}

nvtxRangeId_t NVTX_API domain_start(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) {
  const unsigned long long id = g_next_range_id++;
  write_line("start\t" + std::string(domain_name(d)) + "\t" + message_of(a) + "\t" + payload_of(a) + "\t" +
             std::to_string(tid()) + "\t" + std::to_string(id));
  return id;
}

void NVTX_API domain_end(nvtxDomainHandle_t d, nvtxRangeId_t id) {
  write_line("end\t" + std::string(domain_name(d)) + "\t" + std::to_string(tid()) + "\t" + std::to_string(id));
}

int NVTX_API push_a(const char* name) {
  write_line("push\t-\t" + std::string(name ? name : "") + "\t-\t" + std::to_string(tid()));
  return 0;
}

int NVTX_API pop_default() {
  write_line("pop\t-\t" + std::to_string(tid()));
  return 0;
}

int NVTX_API push_ex(const nvtxEventAttributes_t* a) { return domain_push(nullptr, a); }

template <class Fn>
void set(NvtxFunctionTable table, unsigned size, unsigned id, Fn fn) {
  if (id < size && table[id]) *table[id] = reinterpret_cast<NvtxFunctionPointer>(fn);
}

}  // namespace

extern "C" NVTX_DYNAMIC_EXPORT int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_export_table) {
  const char* path = std::getenv("WK_NVTX_LOG");
  if (!path) return 0;
  g_log = std::fopen(path, "a");
  if (!g_log) return 0;
  const auto* callbacks = static_cast<const NvtxExportTableCallbacks*>(get_export_table(NVTX_ETID_CALLBACKS));
  if (!callbacks) return 0;
  NvtxFunctionTable core = nullptr, core2 = nullptr;
  unsigned core_size = 0, core2_size = 0;
  if (!callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &core, &core_size)) return 0;
  if (!callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &core2, &core2_size)) return 0;
  set(core, core_size, NVTX_CBID_CORE_RangePushA, push_a);
  set(core, core_size, NVTX_CBID_CORE_RangePushEx, push_ex);
  set(core, core_size, NVTX_CBID_CORE_RangePop, pop_default);
  set(core2, core2_size, NVTX_CBID_CORE2_DomainCreateA, domain_create);
  set(core2, core2_size, NVTX_CBID_CORE2_DomainRangePushEx, domain_push);
  set(core2, core2_size, NVTX_CBID_CORE2_DomainRangePop, domain_pop);
  set(core2, core2_size, NVTX_CBID_CORE2_DomainRangeStartEx, domain_start);
  set(core2, core2_size, NVTX_CBID_CORE2_DomainRangeEnd, domain_end);
  return 1;
}
