/* SPDX-License-Identifier: Apache-2.0 */
/* The report suites' JSON reader: recursive descent over the text, which
 * must be valid UTF-8; values own their children. Surrogate escapes are
 * rejected (the writers never need them). */
#include "report-test-json.h"

#include <check.h>
#include <math.h>
#include <string.h>

void
json_free(gpointer json)
{
    Json *j = json;
    if (j == NULL)
        return;
    g_free(j->text);
    if (j->keys != NULL)
        g_ptr_array_unref(j->keys);
    if (j->items != NULL)
        g_ptr_array_unref(j->items);
    g_free(j);
}

typedef struct Parser {
    const char *p, *start;
    char *error; /* the first error, with its offset */
} Parser;

static Json *
parse_fail(Parser *ps, const char *what)
{
    if (ps->error == NULL)
        ps->error = g_strdup_printf("offset %td: %s", ps->p - ps->start, what);
    return NULL;
}

static void
skip_blanks(Parser *ps)
{
    while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')
        ps->p++;
}

static Json *
json_new(JsonType type)
{
    Json *j = g_new0(Json, 1);
    j->type = type;
    return j;
}

static int
hex4(const char *p)
{
    int v = 0;
    for (int i = 0; i < 4; i++) {
        int d = g_ascii_xdigit_value(p[i]);
        if (d < 0)
            return -1;
        v = v * 16 + d;
    }
    return v;
}

/* A string's text after its opening quote, decoded, into out. */
static bool
parse_chars(Parser *ps, GString *out)
{
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    for (;;) {
        unsigned char ch = (unsigned char)*ps->p;
        if (ch == '"') {
            ps->p++;
            return true;
        }
        if (ch < 0x20) {
            parse_fail(ps, ch == 0 ? "unterminated string" : "raw control character");
            return false;
        }
        if (ch != '\\') {
            g_string_append_c(out, (char)ch);
            ps->p++;
            continue;
        }
        const char *e = ps->p[1] != '\0' ? strchr(from, ps->p[1]) : NULL;
        if (e != NULL) {
            g_string_append_c(out, to[e - from]);
            ps->p += 2;
            continue;
        }
        int u = ps->p[1] == 'u' ? hex4(ps->p + 2) : -1;
        if (u < 0 || (u >= 0xd800 && u <= 0xdfff)) {
            parse_fail(ps, "bad escape");
            return false;
        }
        g_string_append_unichar(out, (gunichar)u);
        ps->p += 6;
    }
}

static Json *
parse_string(Parser *ps)
{
    if (*ps->p != '"')
        return parse_fail(ps, "expected a string");
    ps->p++;
    g_autoptr(GString) text = g_string_new(NULL);
    if (!parse_chars(ps, text))
        return NULL;
    Json *j = json_new(J_STRING);
    j->text = g_strdup(text->str);
    return j;
}

/* -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static Json *
parse_number(Parser *ps)
{
    const char *s = ps->p;
    if (*ps->p == '-')
        ps->p++;
    if (*ps->p == '0')
        ps->p++;
    else if (g_ascii_isdigit(*ps->p))
        while (g_ascii_isdigit(*ps->p))
            ps->p++;
    else
        return parse_fail(ps, "bad number");
    if (*ps->p == '.') {
        ps->p++;
        if (!g_ascii_isdigit(*ps->p))
            return parse_fail(ps, "bad fraction");
        while (g_ascii_isdigit(*ps->p))
            ps->p++;
    }
    if (*ps->p == 'e' || *ps->p == 'E') {
        ps->p++;
        if (*ps->p == '+' || *ps->p == '-')
            ps->p++;
        if (!g_ascii_isdigit(*ps->p))
            return parse_fail(ps, "bad exponent");
        while (g_ascii_isdigit(*ps->p))
            ps->p++;
    }
    Json *j = json_new(J_NUMBER);
    j->text = g_strndup(s, (gsize)(ps->p - s));
    return j;
}

static Json *parse_value(Parser *ps);

/* An array or object after its opening bracket, up to close. */
static Json *
parse_container(Parser *ps, bool object)
{
    g_autoptr(Json) j = json_new(object ? J_OBJECT : J_ARRAY);
    j->items = g_ptr_array_new_with_free_func(json_free);
    j->keys = object ? g_ptr_array_new_with_free_func(g_free) : NULL;
    skip_blanks(ps);
    if (*ps->p == (object ? '}' : ']')) {
        ps->p++;
        return g_steal_pointer(&j);
    }
    for (;;) {
        skip_blanks(ps);
        if (object) {
            g_autoptr(Json) key = parse_string(ps);
            if (key == NULL)
                return NULL;
            for (guint k = 0; k < j->keys->len; k++)
                if (strcmp(j->keys->pdata[k], key->text) == 0)
                    return parse_fail(ps, "duplicate key");
            g_ptr_array_add(j->keys, g_steal_pointer(&key->text));
            skip_blanks(ps);
            if (*ps->p++ != ':')
                return parse_fail(ps, "expected ':'");
        }
        Json *v = parse_value(ps);
        if (v == NULL)
            return NULL;
        g_ptr_array_add(j->items, v);
        skip_blanks(ps);
        char ch = *ps->p++;
        if (ch == (object ? '}' : ']'))
            return g_steal_pointer(&j);
        if (ch != ',')
            return parse_fail(ps, "expected ',' or a closing bracket");
    }
}

static Json *
parse_value(Parser *ps)
{
    skip_blanks(ps);
    static const char *const words[] = {"null", "true", "false"};
    for (int w = 0; w < 3; w++)
        if (strncmp(ps->p, words[w], strlen(words[w])) == 0) {
            ps->p += strlen(words[w]);
            Json *j = json_new(w == 0 ? J_NULL : J_BOOL);
            j->boolean = w == 1;
            return j;
        }
    switch (*ps->p) {
    case '{':
    case '[':
        return parse_container(ps, *ps->p++ == '{');
    case '"':
        return parse_string(ps);
    default:
        return parse_number(ps);
    }
}

Json *
json_parse(const char *text, char **error)
{
    Parser ps = {.p = text, .start = text};
    Json *j = g_utf8_validate(text, -1, NULL) ? parse_value(&ps) : parse_fail(&ps, "not UTF-8");
    if (j != NULL) {
        skip_blanks(&ps);
        if (*ps.p != '\0') {
            json_free(j);
            j = parse_fail(&ps, "text after the value");
        }
    }
    *error = ps.error;
    return j;
}

const Json *
json_get(const Json *object, const char *key)
{
    if (object == NULL || object->type != J_OBJECT)
        return NULL;
    for (guint k = 0; k < object->keys->len; k++)
        if (strcmp(object->keys->pdata[k], key) == 0)
            return object->items->pdata[k];
    return NULL;
}

const char *
json_str(const Json *object, const char *key)
{
    const Json *v = json_get(object, key);
    ck_assert_msg(v != NULL && v->type == J_STRING, "\"%s\": not a string", key);
    return v->text;
}

uint64_t
json_uint(const Json *object, const char *key)
{
    const Json *v = json_get(object, key);
    ck_assert_msg(v != NULL && v->type == J_NUMBER, "\"%s\": not a number", key);
    guint64 n;
    ck_assert_msg(g_ascii_string_to_unsigned(v->text, 10, 0, G_MAXUINT64, &n, NULL),
                  "\"%s\": %s is not a non-negative integer", key, v->text);
    return n;
}

uint64_t
json_us(const Json *object, const char *key)
{
    const Json *v = json_get(object, key);
    ck_assert_msg(v != NULL && v->type == J_NUMBER, "\"%s\": not a number", key);
    double us = g_ascii_strtod(v->text, NULL);
    ck_assert_msg(us >= 0 && us < 9e9, "\"%s\": %s is not microseconds of a step", key, v->text);
    uint64_t ps = (uint64_t)llround(us * 1e6);
    ck_assert_msg((double)ps / 1e6 == us, "\"%s\": %s is not the double nearest a ps", key,
                  v->text);
    return ps;
}

bool
json_bool(const Json *object, const char *key)
{
    const Json *v = json_get(object, key);
    ck_assert_msg(v != NULL && v->type == J_BOOL, "\"%s\": not a boolean", key);
    return v->boolean;
}
