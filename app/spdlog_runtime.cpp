// spdlog's implementation, compiled once into the tool. With
// PT_STATIC_RUNTIME the tool cannot link Debian's libspdlog.so, and spdlog's
// header-only mode compiles its whole implementation into every file that
// includes it (the precompiled header puts it in all of them): twice the
// app's build time. So every file sees declarations only
// (SPDLOG_COMPILED_LIB) and this one includes the implementation files and
// instantiates the templates the tool uses, as spdlog's own library build
// does. fmt stays header-only (FMT_HEADER_ONLY; cheap to compile).
#if defined(SPDLOG_COMPILED_LIB) && !defined(SPDLOG_SHARED_LIB)

#include <mutex>

#include <spdlog/common-inl.h>
#include <spdlog/details/backtracer-inl.h>
#include <spdlog/details/log_msg-inl.h>
#include <spdlog/details/log_msg_buffer-inl.h>
#include <spdlog/details/null_mutex.h>
#include <spdlog/details/os-inl.h>
#include <spdlog/details/periodic_worker-inl.h>
#include <spdlog/details/registry-inl.h>
#include <spdlog/logger-inl.h>
#include <spdlog/pattern_formatter-inl.h>
#include <spdlog/sinks/ansicolor_sink-inl.h>
#include <spdlog/sinks/base_sink-inl.h>
#include <spdlog/sinks/sink-inl.h>
#include <spdlog/sinks/stdout_sinks-inl.h>
#include <spdlog/spdlog-inl.h>

// The registry's built-in default logger (replaced at start-up by ours).
template class spdlog::sinks::ansicolor_sink<spdlog::details::console_mutex>;
template class spdlog::sinks::ansicolor_stdout_sink<spdlog::details::console_mutex>;
template class spdlog::sinks::base_sink<std::mutex>;
template class spdlog::sinks::base_sink<spdlog::details::null_mutex>;
template class spdlog::sinks::stdout_sink_base<spdlog::details::console_nullmutex>;
template class spdlog::sinks::stderr_sink<spdlog::details::console_nullmutex>;
template std::shared_ptr<spdlog::logger> spdlog::stderr_logger_st<spdlog::synchronous_factory>(
    const std::string& logger_name);

#endif
