/* SPDX-License-Identifier: Apache-2.0 */
/* A strict JSON reader for the report suites: objects, arrays, strings
 * with escapes, numbers, true, false and null, as RFC 8259 has them;
 * duplicate keys, trailing text and invalid UTF-8 are errors. Enough to
 * check what the writers emit without a JSON library. */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

typedef enum JsonType { J_NULL, J_BOOL, J_NUMBER, J_STRING, J_ARRAY, J_OBJECT } JsonType;

typedef struct Json {
    JsonType type;
    bool boolean;
    char *text;       /* a number's text as written; a string decoded */
    GPtrArray *keys;  /* object: char * */
    GPtrArray *items; /* array: its values; object: the values of keys */
} Json;

void json_free(gpointer json);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(Json, json_free)

/* The whole text as one JSON value (free with json_free); NULL and the
 * error, with its offset, in *error (free with g_free) when it is not. */
Json *json_parse(const char *text, char **error);

/* object's value at key; NULL when object is not an object or lacks it. */
const Json *json_get(const Json *object, const char *key);

/* object's value at key as a string, a non-negative integer, microseconds
 * (in ps: the number must be the double nearest a whole ps), a boolean; each fails the running
 * Check test when the value is missing or not of its kind. */
const char *json_str(const Json *object, const char *key);
uint64_t json_uint(const Json *object, const char *key);
uint64_t json_us(const Json *object, const char *key);
bool json_bool(const Json *object, const char *key);
