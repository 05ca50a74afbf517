#include "app_json.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

static void append(app_json* j, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  size_t room = sizeof j->text - j->len;
  int n = vsnprintf(j->text + j->len, room, fmt, ap);
  va_end(ap);
  if (n > 0) j->len += (size_t)n < room ? (size_t)n : room - 1;
}

static void key(app_json* j, const char* k) {
  append(j, "%s\"%s\":", j->fields++ ? ", " : "", k);
}

void json_begin(app_json* j) {
  j->len = 0;
  j->fields = 0;
  j->text[0] = '\0';
  append(j, "{");
}

void json_str(app_json* j, const char* k, const char* value) {
  key(j, k);
  append(j, "\"");
  for (const char* c = value; *c; ++c) {
    if (*c == '"' || *c == '\\')
      append(j, "\\%c", *c);
    else if ((unsigned char)*c < 0x20)
      append(j, "\\u%04x", (unsigned char)*c);
    else
      append(j, "%c", *c);
  }
  append(j, "\"");
}

void json_num(app_json* j, const char* k, double value) {
  key(j, k);
  if (isfinite(value))
    append(j, "%.17g", value);
  else
    append(j, "null");
}

void json_int(app_json* j, const char* k, int64_t value) {
  key(j, k);
  append(j, "%lld", (long long)value);
}

void json_bool(app_json* j, const char* k, int value) {
  key(j, k);
  append(j, value ? "true" : "false");
}

void json_null(app_json* j, const char* k) {
  key(j, k);
  append(j, "null");
}

void json_end(app_json* j) {
  append(j, "}");
  puts(j->text);
  fflush(stdout);
}
