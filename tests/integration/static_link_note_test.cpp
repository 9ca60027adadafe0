// Issue 11 §15: the first build's link of the static binary printed nine "Using 'getaddrinfo' in
// statically linked applications requires at runtime …" warnings that newcomers read as errors.
// scripts/static-link.sh (the link launcher of `pincer`, CMakeLists.txt) replaces exactly those by
// one note, keeps every other line and the link's exit status. Fed here with ld's real output.
#include <gtest/gtest.h>

#include "gateway_process.h"

namespace pincer::test {
namespace static_link_note_test {  // named: the unity build puts several test files in one unit
namespace {

// As GNU ld 2.40 prints them when linking pincer against glibc 2.36, libcrypto.a and libedit.a.
constexpr const char* kLdOutput =
    "/usr/bin/ld: /usr/lib/x86_64-linux-gnu/libcrypto.a(libcrypto-lib-dso_dlfcn.o): in function `dlfcn_globallookup':\n"
    "(.text+0x11): warning: Using 'dlopen' in statically linked applications requires at runtime the shared libraries "
    "from the glibc version used for linking\n"
    "/usr/bin/ld: /usr/lib/x86_64-linux-gnu/libedit.a(readline.o): in function `username_completion_function':\n"
    "(.text+0x3a29): warning: Using 'setpwent' in statically linked applications requires at runtime the shared "
    "libraries from the glibc version used for linking\n"
    "/usr/bin/ld: (.text+0x3a31): warning: Using 'endpwent' in statically linked applications requires at runtime the "
    "shared libraries from the glibc version used for linking\n"
    "/usr/bin/ld: libpincer_cli.a(net_gateway_client.cpp.o): in function `boost::asio::detail::socket_ops::getaddrinfo("
    "char const*, char const*, addrinfo const&, addrinfo**, boost::system::error_code&)':\n"
    "/usr/include/boost/asio/detail/impl/socket_ops.ipp:3750: warning: Using 'getaddrinfo' in statically linked "
    "applications requires at runtime the shared libraries from the glibc version used for linking\n"
    "/usr/bin/ld: foo.o: in function `main':\n"
    "foo.c:3: undefined reference to `bar'\n";

TEST(StaticLinkNote, GlibcStaticWarningsBecomeOneNoteAndEverythingElseStays) {
  TempDir dir;
  dir.write("ld-output.txt", kLdOutput);
  const std::string script = std::string(PINCER_SOURCE_DIR) + "/scripts/static-link.sh";
  // Stands in for the link command: prints ld's output and fails as a link with an undefined symbol does.
  Process p({"/bin/sh", script, "/bin/sh", "-c", "cat '" + (dir.path() / "ld-output.txt").string() + "' >&2; exit 1"}, {});
  auto code = p.wait(10s);
  ASSERT_TRUE(code);
  EXPECT_EQ(*code, 1);  // the link's status
  const std::string out = p.out() + p.err();
  EXPECT_EQ(out.find("statically linked applications requires"), std::string::npos) << out;
  EXPECT_EQ(out.find("dlfcn_globallookup"), std::string::npos) << out;
  EXPECT_NE(out.find("note: pincer is linked statically; the glibc functions dlopen, setpwent, endpwent, getaddrinfo "),
            std::string::npos)
      << out;
  // A real problem is kept, with the line that says where.
  EXPECT_NE(out.find("/usr/bin/ld: foo.o: in function `main':\nfoo.c:3: undefined reference to `bar'"), std::string::npos)
      << out;
  auto note_lines = 0;
  for (std::size_t at = out.find("note:"); at != std::string::npos; at = out.find("note:", at + 1)) ++note_lines;
  EXPECT_EQ(note_lines, 1);
}

TEST(StaticLinkNote, ACleanLinkPrintsNothing) {
  const std::string script = std::string(PINCER_SOURCE_DIR) + "/scripts/static-link.sh";
  Process p({"/bin/sh", script, "/bin/true"}, {});
  EXPECT_EQ(p.wait(10s), 0);
  EXPECT_EQ(p.out() + p.err(), "");
}

}  // namespace
}  // namespace static_link_note_test
}  // namespace pincer::test
