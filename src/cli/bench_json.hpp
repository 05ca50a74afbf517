// One flat JSON object on one line: the benchmark's output format. Non-finite numbers become
// null (JSON has no infinity), which readers treat as "not available".
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace commpress::cli {

class JsonLine {
 public:
  JsonLine& add(std::string_view key, std::string_view value) { return raw(key, quote(value)); }
  JsonLine& add(std::string_view key, const char* value) {
    return add(key, std::string_view(value));
  }
  JsonLine& add(std::string_view key, double value) { return raw(key, number(value)); }
  JsonLine& add(std::string_view key, uint64_t value) { return raw(key, std::to_string(value)); }
  JsonLine& add(std::string_view key, int value) { return raw(key, std::to_string(value)); }
  JsonLine& add(std::string_view key, bool value) { return raw(key, value ? "true" : "false"); }
  JsonLine& add(std::string_view key, const std::vector<double>& values) {
    std::string s = "[";
    for (size_t i = 0; i < values.size(); ++i) {
      if (i) s += ',';
      s += number(values[i]);
    }
    s += ']';
    return raw(key, s);
  }
  JsonLine& null(std::string_view key) { return raw(key, "null"); }

  std::string str() const { return "{" + body_ + "}"; }

 private:
  JsonLine& raw(std::string_view key, const std::string& value) {
    if (!body_.empty()) body_ += ',';
    body_ += quote(key) + ':' + value;
    return *this;
  }

  static std::string number(double v) {
    if (!std::isfinite(v)) return "null";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    return buf;
  }

  static std::string quote(std::string_view s) {
    std::string out = "\"";
    for (char c : s) {
      if (c == '"' || c == '\\') {
        out += '\\';
        out += c;
      } else if (static_cast<unsigned char>(c) < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", unsigned(static_cast<unsigned char>(c)));
        out += buf;
      } else {
        out += c;
      }
    }
    return out + '"';
  }

  std::string body_;
};

}  // namespace commpress::cli
