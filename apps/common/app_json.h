/* One JSON object on one line: what every application prints as its result. */
#ifndef COMMPRESS_APPS_APP_JSON_H
#define COMMPRESS_APPS_APP_JSON_H

#include <stddef.h>
#include <stdint.h>

typedef struct app_json {
  char text[4096];
  size_t len;
  int fields;
} app_json;

void json_begin(app_json* j);
void json_str(app_json* j, const char* key, const char* value);
/* Non-finite numbers print as null: JSON has no NaN, and a reader must not mistake it. */
void json_num(app_json* j, const char* key, double value);
void json_int(app_json* j, const char* key, int64_t value);
void json_bool(app_json* j, const char* key, int value);
void json_null(app_json* j, const char* key);
/* Prints the object and a newline to stdout. */
void json_end(app_json* j);

#endif
