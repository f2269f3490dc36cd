/* SPDX-License-Identifier: Apache-2.0 */
/* The key-table loader: GKeyFile group -> struct fields, units parsed once.
 *
 * Every error names the file, the group and the key, then what was wrong
 * and what was expected (the unit parser's message for values).
 */
#include "hw/hw-keys.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "core/core-text.h"
#include "core/core-time.h"
#include "core/core-units.h"

G_DEFINE_QUARK(hw - key - error - quark, hw_key_error)

bool
hw_keys_parse_bool(const char *text, bool *out, GError **error)
{
    static const char *const yes[] = {"yes", "true", "1"};
    static const char *const no[] = {"no", "false", "0"};
    g_autofree char *word = g_strstrip(g_strdup(text));
    for (size_t i = 0; i < G_N_ELEMENTS(yes); i++) {
        if (g_ascii_strcasecmp(word, yes[i]) == 0 || g_ascii_strcasecmp(word, no[i]) == 0) {
            *out = g_ascii_strcasecmp(word, yes[i]) == 0;
            return true;
        }
    }
    g_set_error(error, HW_KEY_ERROR, HW_KEY_ERROR_INVALID,
                "'%s' is not a yes/no value: expected yes, no, true, false, 1 or 0", text);
    return false;
}

/* ---- Ranges. ---- */

/* A unit's suffix and its size in the kind's base unit. */
typedef struct Unit {
    const char *suffix;
    double scale;
} Unit;

static const Unit time_units[] = {{"ps", 1}, {"ns", 1e3}, {"us", 1e6}, {"ms", 1e9}, {"s", 1e12}};
static const Unit size_units[] = {{"B", 1}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}};
static const Unit rate_units[] = {
    {"B/s", 1}, {"KB/s", 1e3}, {"MB/s", 1e6}, {"GB/s", 1e9}, {"TB/s", 1e12}};
static const Unit flops_units[] = {{"FLOP/s", 1},     {"GFLOP/s", 1e9}, {"TFLOP/s", 1e12},
                                   {"PFLOP/s", 1e15}};
/* What a model file may say of a quantity: wider than any real part, and
 * narrow enough that the step's sums of such times and transfers stay far
 * from the simulated clock's end (2^64 ps, 213 days), so that an absurd
 * value is an error here rather than an overflow in the event loop. A
 * probability of failure stops short of 1 (such a link never delivers), a
 * share kept starts above 0 (such a rate never finishes). */
static const struct {
    HwKeyKind kind;
    HwKeyRange range;
    const Unit *units; /* NULL: a plain number, said with noun and example */
    size_t n_units;
    const char *noun, *example;
} ranges[] = {
    {HW_KEY_TIME_PS, {0, 1e12, false, false}, time_units, G_N_ELEMENTS(time_units), NULL, NULL},
    {HW_KEY_SIZE_BYTES, {0, 1e15, false, false}, size_units, G_N_ELEMENTS(size_units), NULL,
     NULL},
    {HW_KEY_BYTES_PER_S, {(double)HW_KEYS_MIN_BYTES_PER_S, 1e15, false, false}, rate_units,
     G_N_ELEMENTS(rate_units), NULL, NULL},
    {HW_KEY_FLOPS_PER_S, {(double)HW_KEYS_MIN_FLOPS_PER_S, 1e18, false, false}, flops_units, G_N_ELEMENTS(flops_units), NULL,
     NULL},
    {HW_KEY_PROBABILITY, {0, 1, false, true}, NULL, 0, "a probability", "1e-12"},
    {HW_KEY_FRACTION, {0, 1, true, false}, NULL, 0, "a share", "0.5"},
};

static int
range_index(HwKeyKind kind)
{
    for (size_t i = 0; i < G_N_ELEMENTS(ranges); i++)
        if (ranges[i].kind == kind)
            return (int)i;
    return -1;
}

const HwKeyRange *
hw_key_range(HwKeyKind kind)
{
    int i = range_index(kind);
    return i < 0 ? NULL : &ranges[i].range;
}

bool
hw_key_range_holds(HwKeyKind kind, double value)
{
    const HwKeyRange *r = hw_key_range(kind);
    g_return_val_if_fail(r != NULL, false);
    bool above = r->min_open ? value > r->min : value >= r->min;
    bool below = r->max_open ? value < r->max : value <= r->max;
    return above && below;
}

/* value (a whole number of the base unit) in the largest unit that writes
 * it as a whole number. */
static char *
with_unit(double value, const Unit *units, size_t n_units)
{
    size_t best = 0;
    for (size_t i = 0; i < n_units; i++)
        if (value >= units[i].scale && fmod(value, units[i].scale) == 0)
            best = i;
    return g_strdup_printf("%.0f%s", value / units[best].scale, units[best].suffix);
}

char *
hw_key_range_text(HwKeyKind kind)
{
    int i = range_index(kind);
    if (i < 0)
        return NULL;
    const HwKeyRange *r = &ranges[i].range;
    if (ranges[i].units != NULL) {
        g_autofree char *lo = with_unit(r->min, ranges[i].units, ranges[i].n_units);
        g_autofree char *hi = with_unit(r->max, ranges[i].units, ranges[i].n_units);
        return g_strdup_printf("%s to %s", lo, hi);
    }
    return g_strdup_printf("%s %s %g and %s %g, such as %s", ranges[i].noun,
                           r->min_open ? "above" : "at least", r->min,
                           r->max_open ? "below" : "at most", r->max, ranges[i].example);
}

static bool
fail_range(const HwKey *key, const char *text, GError **error)
{
    g_autofree char *range = hw_key_range_text(key->kind);
    g_set_error(error, HW_KEY_ERROR, HW_KEY_ERROR_INVALID, "'%s' is out of range: expected %s",
                text, range);
    return false;
}

/* A plain decimal number in the kind's range; binary floating point is
 * fine here because a probability or a share is never summed into a time
 * or a byte count. A value that rounds to a bound in double is that bound
 * (0.99999999999999999 is 1; 1e-400 is 0). */
static bool
parse_unit_interval(const HwKey *key, const char *text, double *out, GError **error)
{
    g_autofree char *word = g_strstrip(g_strdup(text));
    char *end = NULL;
    double p = g_ascii_strtod(word, &end);
    if (*word == '\0' || end == word || *end != '\0' || !isfinite(p)) {
        g_autofree char *range = hw_key_range_text(key->kind);
        g_set_error(error, HW_KEY_ERROR, HW_KEY_ERROR_INVALID, "'%s' is not a number: expected %s",
                    text, range);
        return false;
    }
    if (!hw_key_range_holds(key->kind, p))
        return fail_range(key, text, error);
    *out = p;
    return true;
}

/* A quantity in its kind's (closed) range, compared as integers: the
 * bounds are whole numbers a double holds exactly, a value above 2^53
 * may not be. */
static bool
check_limits(const HwKey *key, const char *text, uint64_t value, GError **error)
{
    const HwKeyRange *r = hw_key_range(key->kind);
    g_assert(!r->min_open && !r->max_open);
    if (value >= (uint64_t)r->min && value <= (uint64_t)r->max)
        return true;
    return fail_range(key, text, error);
}

static bool
parse_value(const HwKey *key, const char *text, void *out, GError **error)
{
    uint64_t *field = (uint64_t *)((char *)out + key->offset);
    switch (key->kind) {
    case HW_KEY_TIME_PS:
        return sim_units_parse_time_ps(text, field, error) &&
               check_limits(key, text, *field, error);
    case HW_KEY_SIZE_BYTES:
        return sim_units_parse_size_bytes(text, field, error) &&
               check_limits(key, text, *field, error);
    case HW_KEY_BYTES_PER_S:
        return sim_units_parse_bandwidth_bytes_per_s(text, field, error) &&
               check_limits(key, text, *field, error);
    case HW_KEY_FLOPS_PER_S:
        return sim_units_parse_rate_flops_per_s(text, field, error) &&
               check_limits(key, text, *field, error);
    case HW_KEY_COUNT:
        return sim_units_parse_count(text, field, error);
    case HW_KEY_STRING: {
        char **string = (char **)((char *)out + key->offset);
        g_free(*string);
        *string = g_strdup(text);
        return true;
    }
    case HW_KEY_BOOL:
        return hw_keys_parse_bool(text, (bool *)((char *)out + key->offset), error);
    case HW_KEY_PROBABILITY:
    case HW_KEY_FRACTION:
        return parse_unit_interval(key, text, (double *)((char *)out + key->offset), error);
    }
    g_assert_not_reached();
}

static bool G_GNUC_PRINTF(4, 5)
    line_fail(GError **error, const char *name, unsigned line, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    g_autofree char *what = g_strdup_vprintf(format, args);
    va_end(args);
    g_set_error(error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_PARSE, "%s:%u: %s", name, line, what);
    return false;
}

/* GKeyFile's syntax, checked line by line (its own errors name no line,
 * and it keeps the last of two values of a key without a word). */
static bool
check_lines(const char *name, const char *data, gsize length, GError **error)
{
    g_autoptr(GHashTable) first_line = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    g_autofree char *group = NULL;
    const char *end = data + length;
    unsigned line = 1;
    for (const char *p = data; p < end; line++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        g_autofree char *text = g_strndup(p, (gsize)((nl != NULL ? nl : end) - p));
        p = nl != NULL ? nl + 1 : end;
        g_strstrip(text);
        size_t n = strlen(text);
        if (n == 0 || text[0] == '#')
            continue;
        if (text[0] == '[' && text[n - 1] == ']' && n > 2) {
            g_free(group);
            group = g_strndup(text + 1, n - 2);
            continue;
        }
        char *eq = strchr(text, '=');
        if (eq == NULL || eq == text || text[0] == '[') {
            g_autofree char *excerpt = sim_text_excerpt(text, 40);
            return line_fail(error, name, line,
                             "expected a [group], key = value or # comment, got '%s'", excerpt);
        }
        *eq = '\0';
        g_strchomp(text);
        if (group == NULL)
            return line_fail(error, name, line, "%s: a key before any [group]", text);
        char *key = g_strdup_printf("%s]%s", group, text);
        unsigned seen = GPOINTER_TO_UINT(g_hash_table_lookup(first_line, key));
        if (seen > 0) {
            g_free(key);
            return line_fail(error, name, line, "[%s] %s: given twice (first on line %u)", group,
                             text, seen);
        }
        g_hash_table_insert(first_line, key, GUINT_TO_POINTER(line));
    }
    return true;
}

/* hw_keys_data_load on text sim_text_check has passed already. */
static bool
load_text(GKeyFile *kf, const char *name, const char *data, gsize length, GError **error)
{
    if (!check_lines(name, data, length, error))
        return false;
    GError *local = NULL;
    if (!g_key_file_load_from_data(kf, data, length, G_KEY_FILE_NONE, &local)) {
        g_set_error(error, local->domain, local->code, "%s: %s", name, local->message);
        g_error_free(local);
        return false;
    }
    return true;
}

bool
hw_keys_data_load(GKeyFile *kf, const char *name, const char *data, gsize length, GError **error)
{
    return sim_text_check(name, data, length, error) && load_text(kf, name, data, length, error);
}

GKeyFile *
hw_keys_open(const char *path, const char *what, const char *only_group, const char *data,
             gsize length, GError **error)
{
    g_autofree char *read = NULL;
    if (data == NULL) {
        /* sim_text_read checks the text as it reads it. */
        if (!sim_text_read(path, what, &read, &length, error))
            return NULL;
        data = read;
    } else {
        if (length == (gsize)-1)
            length = strlen(data);
        if (!sim_text_check(path, data, length, error))
            return NULL;
    }
    g_autoptr(GKeyFile) kf = g_key_file_new();
    if (!load_text(kf, path, data, length, error))
        return NULL;
    g_auto(GStrv) groups = g_key_file_get_groups(kf, NULL);
    for (char **group = groups; only_group != NULL && *group != NULL; group++)
        if (strcmp(*group, only_group) != 0) {
            g_set_error(error, HW_KEY_ERROR, HW_KEY_ERROR_UNKNOWN,
                        "%s: [%s]: unknown group; expected [%s] only", path, *group, only_group);
            return NULL;
        }
    return g_steal_pointer(&kf);
}

GKeyFile *
hw_keys_file_load(const char *path, const char *what, const char *only_group, GError **error)
{
    return hw_keys_open(path, what, only_group, NULL, 0, error);
}

static const HwKey *
find_key(const HwKey *keys, size_t n_keys, const char *name)
{
    for (size_t i = 0; i < n_keys; i++)
        if (strcmp(keys[i].name, name) == 0)
            return &keys[i];
    return NULL;
}

static char *
key_names(const HwKey *keys, size_t n_keys)
{
    GString *s = g_string_new(NULL);
    for (size_t i = 0; i < n_keys; i++)
        g_string_append_printf(s, "%s%s", i ? ", " : "", keys[i].name);
    return g_string_free(s, FALSE);
}

/* Whether text ends in a backslash that escapes nothing. */
static bool
ends_in_lone_backslash(const char *text)
{
    size_t n = strlen(text), k = 0;
    while (k < n && text[n - 1 - k] == '\\')
        k++;
    return k % 2 == 1;
}

/* Whether key is present and its raw value does not end in a lone
 * backslash; else an error. GLib 2.74 (Debian 12's) sets its error twice,
 * and warns on stderr, when such a value also holds an invalid escape
 * ("a\q\"); later versions clear the first. Such a value is refused here
 * before GLib reads it. */
static bool
check_escapes(GKeyFile *kf, const char *group, const char *key, GError **error)
{
    g_autofree char *raw = g_key_file_get_value(kf, group, key, error);
    if (raw == NULL)
        return false;
    if (ends_in_lone_backslash(raw)) {
        g_set_error(error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                    "'%s' ends in a backslash that escapes nothing", raw);
        return false;
    }
    return true;
}

char *
hw_keys_get_string(GKeyFile *kf, const char *group, const char *key, GError **error)
{
    if (!check_escapes(kf, group, key, error))
        return NULL;
    GError *local = NULL;
    g_autofree char *text = g_key_file_get_string(kf, group, key, &local);
    if (local != NULL) {
        g_propagate_error(error, local);
        return NULL;
    }
    return g_steal_pointer(&text);
}

char **
hw_keys_get_string_list(GKeyFile *kf, const char *group, const char *key, gsize *length,
                        GError **error)
{
    *length = 0;
    if (!check_escapes(kf, group, key, error))
        return NULL;
    GError *local = NULL;
    g_auto(GStrv) list = g_key_file_get_string_list(kf, group, key, length, &local);
    if (local != NULL) {
        *length = 0;
        g_propagate_error(error, local);
        return NULL;
    }
    return g_steal_pointer(&list);
}

bool
hw_keys_load(GKeyFile *kf, const char *path, const char *group, const HwKey *keys, size_t n_keys,
             void *out, GError **error)
{
    if (!g_key_file_has_group(kf, group)) {
        g_set_error(error, HW_KEY_ERROR, HW_KEY_ERROR_MISSING, "%s: no [%s] group", path, group);
        return false;
    }
    g_auto(GStrv) present = g_key_file_get_keys(kf, group, NULL, NULL);
    for (char **name = present; name && *name; name++) {
        if (find_key(keys, n_keys, *name) == NULL) {
            g_autofree char *known = key_names(keys, n_keys);
            g_set_error(error, HW_KEY_ERROR, HW_KEY_ERROR_UNKNOWN,
                        "%s: [%s] %s: unknown key; expected one of: %s", path, group, *name, known);
            return false;
        }
    }
    for (size_t i = 0; i < n_keys; i++) {
        const HwKey *key = &keys[i];
        GError *local = NULL;
        g_autofree char *text = hw_keys_get_string(kf, group, key->name, &local);
        if (text == NULL &&
            !g_error_matches(local, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_KEY_NOT_FOUND)) {
            /* GKeyFile refuses a value that is not UTF-8 (from --set) or has a
             * bad escape; none is a silent default. */
            g_autofree char *raw = g_key_file_get_value(kf, group, key->name, NULL);
            g_autofree char *shown = g_strescape(raw != NULL ? raw : "", NULL);
            g_set_error(error, HW_KEY_ERROR, HW_KEY_ERROR_INVALID,
                        "%s: [%s] %s: '%s' is not UTF-8 text or has a bad escape sequence", path,
                        group, key->name, shown);
            g_error_free(local);
            return false;
        }
        g_clear_error(&local);
        if (text == NULL) {
            if (!key->required)
                continue;
            g_set_error(error, HW_KEY_ERROR, HW_KEY_ERROR_MISSING,
                        "%s: [%s] %s: missing; expected %s", path, group, key->name, key->help);
            return false;
        }
        if (!parse_value(key, text, out, error)) {
            g_prefix_error(error, "%s: [%s] %s: ", path, group, key->name);
            return false;
        }
    }
    return true;
}

bool
hw_keys_fail(GError **error, const char *path, const char *group, const char *key,
             const char *format, ...)
{
    va_list args;
    va_start(args, format);
    g_autofree char *what = g_strdup_vprintf(format, args);
    va_end(args);
    g_set_error(error, HW_KEY_ERROR, HW_KEY_ERROR_INVALID, "%s: [%s] %s: %s", path, group, key,
                what);
    return false;
}

bool
hw_keys_choice(const char *path, const char *group, const char *key, const char *text,
               const char *const *names, size_t n_names, size_t *out, GError **error)
{
    g_autofree char *word = g_strstrip(g_strdup(text));
    for (size_t i = 0; i < n_names; i++) {
        if (strcmp(word, names[i]) == 0) {
            *out = i;
            return true;
        }
    }
    GString *known = g_string_new(NULL);
    for (size_t i = 0; i < n_names; i++)
        g_string_append_printf(known, "%s%s", i ? ", " : "", names[i]);
    g_autofree char *list = g_string_free(known, FALSE);
    return hw_keys_fail(error, path, group, key, "'%s' is not one of: %s", text, list);
}

bool
hw_keys_check_range(const char *path, const char *group, const char *key, uint64_t value,
                    uint64_t min, uint64_t max, GError **error)
{
    if (value >= min && value <= max)
        return true;
    return hw_keys_fail(error, path, group, key,
                        "%" G_GUINT64_FORMAT " is out of range: expected %" G_GUINT64_FORMAT
                        " to %" G_GUINT64_FORMAT,
                        value, min, max);
}

bool
hw_keys_failf(GError **error, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    g_autofree char *message = g_strdup_vprintf(format, args);
    va_end(args);
    g_set_error_literal(error, HW_KEY_ERROR, HW_KEY_ERROR_INVALID, message);
    return false;
}

char *
hw_keys_number_text(double value)
{
    char buf[G_ASCII_DTOSTR_BUF_SIZE];
    for (int digits = 1; digits < 17; digits++) {
        char format[8];
        g_snprintf(format, sizeof format, "%%.%dg", digits);
        g_ascii_formatd(buf, sizeof buf, format, value);
        if (g_ascii_strtod(buf, NULL) == value)
            return g_strdup(buf);
    }
    return g_strdup(g_ascii_dtostr(buf, sizeof buf, value));
}

bool
hw_keys_take_number(const char **p, uint64_t *out)
{
    if (!g_ascii_isdigit(**p))
        return false;
    uint64_t value = 0;
    for (; g_ascii_isdigit(**p); (*p)++)
        value = MIN(value * 10 + (uint64_t)(**p - '0'), (uint64_t)UINT32_MAX);
    *out = value;
    return true;
}
