// The process-wide TLS client context (system CA store, peer verification on). Asio header:
// include only from net_* translation units.
#pragma once

#include <boost/asio/ssl/context.hpp>

namespace pincer::net {

/// Lazily built once; thread-safe to use from any number of streams.
boost::asio::ssl::context& client_tls_context();

}  // namespace pincer::net
