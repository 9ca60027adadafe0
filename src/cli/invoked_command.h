// How a hint printed to the user names this binary, so that the command it suggests runs as typed:
// `./build/pincer onboard` when the user ran ./build/pincer, `pincer onboard` when pincer was found
// on PATH. Set once by main() (app/main.cpp) from argv[0] before the command line is parsed; read
// by every hint in src/cli/ and src/app/ afterwards (main thread; the gateway's hints, printed by
// the process the user started, read the same value). Text written into files that outlive the
// invocation (config comments, unit files) and replies in chats keep the plain `pincer`.
#pragma once

#include <string>

namespace pincer::cli {

/// argv[0] when it holds a '/' (`./build/pincer`, single-quoted when it has a blank or quote), else
/// `pincer`. Unit tests, which do not set it, see `pincer`.
inline std::string& invoked_command() {
  static std::string name = "pincer";
  return name;
}

}  // namespace pincer::cli
