//===- Check.h - The runtime unit tests' checks ---------------------------===//
//
// A plain executable (no gtest: the runtime builds where LLVM's gtest is not
// installed): CHECK counts a failure and prints it, main reports the count.
//
//===----------------------------------------------------------------------===//

#ifndef FATTN_UNITTESTS_RUNTIME_CHECK_H
#define FATTN_UNITTESTS_RUNTIME_CHECK_H

#include <cstdio>
#include <string>

extern int failures;
extern int checks;

#define CHECK(cond)                                                                            \
  do {                                                                                         \
    ++checks;                                                                                  \
    if (!(cond)) {                                                                             \
      ++failures;                                                                              \
      std::printf("  FAILED %s:%d: %s\n", __FILE__, __LINE__, #cond);                          \
    }                                                                                          \
  } while (0)

#define CHECK_CONTAINS(text, needle)                                                           \
  do {                                                                                         \
    ++checks;                                                                                  \
    if (std::string(text).find(needle) == std::string::npos) {                                 \
      ++failures;                                                                              \
      std::printf("  FAILED %s:%d: \"%s\" does not contain \"%s\"\n", __FILE__, __LINE__,      \
                  std::string(text).c_str(), std::string(needle).c_str());                     \
    }                                                                                          \
  } while (0)

/// `s` with the first `from` replaced by `to`; a missing `from` is a failure.
inline std::string replaceOnce(std::string s, const std::string &from, const std::string &to) {
  size_t pos = s.find(from);
  if (pos == std::string::npos) {
    std::printf("  test bug: \"%s\" not in the text\n", from.c_str());
    ++failures;
    return s;
  }
  return s.replace(pos, from.size(), to);
}

#endif // FATTN_UNITTESTS_RUNTIME_CHECK_H
