// spdlog's implementation, compiled once for the whole tree (SPDLOG_COMPILED_LIB is defined for
// every target through pincer_core). Used header-only, spdlog compiled its implementation into
// every translation unit that logs: ~23 s of gcc -O2 per unity batch, over half of a clean
// build's CPU (CI budget: 35 min). Debian ships spdlog's headers and a shared library but no
// static archive, and the release binary links statically, so the implementation headers are
// included here — with SPDLOG_COMPILED_LIB their functions are emitted once, not inline — and the
// class templates the tree uses (the sinks of core/log.cpp, the default logger's colour sink) are
// instantiated explicitly. fmt stays header-only (FMT_HEADER_ONLY): ~1 s per unit.
#ifndef SPDLOG_COMPILED_LIB
#error "SPDLOG_COMPILED_LIB must be defined (CMakeLists.txt, pincer_core)"
#endif

#include <mutex>

#include <spdlog/common-inl.h>
#include <spdlog/details/backtracer-inl.h>
#include <spdlog/details/file_helper-inl.h>
#include <spdlog/details/log_msg-inl.h>
#include <spdlog/details/log_msg_buffer-inl.h>
#include <spdlog/details/os-inl.h>
#include <spdlog/details/periodic_worker-inl.h>
#include <spdlog/details/registry-inl.h>
#include <spdlog/logger-inl.h>
#include <spdlog/pattern_formatter-inl.h>
#include <spdlog/sinks/ansicolor_sink-inl.h>
#include <spdlog/sinks/base_sink-inl.h>
#include <spdlog/sinks/basic_file_sink-inl.h>
#include <spdlog/sinks/sink-inl.h>
#include <spdlog/sinks/stdout_color_sinks-inl.h>
#include <spdlog/spdlog-inl.h>

template class SPDLOG_API spdlog::sinks::base_sink<std::mutex>;
template class SPDLOG_API spdlog::sinks::base_sink<spdlog::details::null_mutex>;
template class SPDLOG_API spdlog::sinks::basic_file_sink<std::mutex>;
template class SPDLOG_API spdlog::sinks::ansicolor_sink<spdlog::details::console_mutex>;
template class SPDLOG_API spdlog::sinks::ansicolor_stdout_sink<spdlog::details::console_mutex>;
template class SPDLOG_API spdlog::sinks::ansicolor_stderr_sink<spdlog::details::console_mutex>;
