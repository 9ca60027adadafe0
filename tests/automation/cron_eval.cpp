// The C++ side of the cron differential test (cron_differential.test.mjs): reads cases from stdin,
// one per line `expr<TAB>zone<TAB>after_ms`, and prints one line each: the next run in Unix ms,
// `none`, or `error <message>` when the expression is refused.
#include <iostream>
#include <string>

#include "automation/cron_expr.h"
#include "automation/schedule.h"

int main() {
  std::ios::sync_with_stdio(false);
  std::string line;
  while (std::getline(std::cin, line)) {
    size_t a = line.find('\t'), b = line.find('\t', a + 1);
    if (a == std::string::npos || b == std::string::npos) {
      std::cout << "error malformed case\n";
      continue;
    }
    auto expr = pincer::automation::parse_cron_expr(line.substr(0, a));
    if (!expr) {
      std::cout << "error " << expr.error().message << "\n";
      continue;
    }
    auto next = pincer::automation::cron_next_after(*expr, line.substr(a + 1, b - a - 1), std::stoll(line.substr(b + 1)));
    if (next) std::cout << *next << "\n";
    else std::cout << "none\n";
  }
  return 0;
}
