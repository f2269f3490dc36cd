/* The key-table loader: GKeyFile group -> struct fields, units parsed once.
 *
 * Every error names the file, the group and the key, then what was wrong
 * and what was expected (the unit parser's message for values).
 */
#include "hw/hw-keys.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "core/core-units.h"

G_DEFINE_QUARK(hw - key - error - quark, hw_key_error)

/* Yes/no words, case-insensitive. */
static bool
parse_bool(const char *text, bool *out, GError **error)
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

/* A plain decimal number from 0 to 1; binary floating point is fine here
 * because a probability is never summed into a time or a byte count. */
static bool
parse_probability(const char *text, double *out, GError **error)
{
    g_autofree char *word = g_strstrip(g_strdup(text));
    char *end = NULL;
    double p = g_ascii_strtod(word, &end);
    if (*word == '\0' || end == word || *end != '\0' || !isfinite(p)) {
        g_set_error(error, HW_KEY_ERROR, HW_KEY_ERROR_INVALID,
                    "'%s' is not a number: expected a probability such as 0 or 1e-12", text);
        return false;
    }
    if (!(p >= 0.0 && p <= 1.0)) {
        g_set_error(error, HW_KEY_ERROR, HW_KEY_ERROR_INVALID,
                    "'%s' is out of range: expected a probability from 0 to 1", text);
        return false;
    }
    *out = p;
    return true;
}

static bool
parse_value(const HwKey *key, const char *text, void *out, GError **error)
{
    uint64_t *field = (uint64_t *)((char *)out + key->offset);
    switch (key->kind) {
    case HW_KEY_TIME_PS:
        return sim_units_parse_time_ps(text, field, error);
    case HW_KEY_SIZE_BYTES:
        return sim_units_parse_size_bytes(text, field, error);
    case HW_KEY_BYTES_PER_S:
        return sim_units_parse_bandwidth_bytes_per_s(text, field, error);
    case HW_KEY_FLOPS_PER_S:
        return sim_units_parse_rate_flops_per_s(text, field, error);
    case HW_KEY_HZ:
        return sim_units_parse_frequency_hz(text, field, error);
    case HW_KEY_COUNT:
        return sim_units_parse_count(text, field, error);
    case HW_KEY_STRING: {
        char **string = (char **)((char *)out + key->offset);
        g_free(*string);
        *string = g_strdup(text);
        return true;
    }
    case HW_KEY_BOOL:
        return parse_bool(text, (bool *)((char *)out + key->offset), error);
    case HW_KEY_PROBABILITY:
        return parse_probability(text, (double *)((char *)out + key->offset), error);
    }
    g_assert_not_reached();
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

GKeyFile *
hw_keys_open(const char *path, const char *data, gsize length, GError **error)
{
    g_return_val_if_fail(path != NULL, NULL);
    g_autoptr(GKeyFile) kf = g_key_file_new();
    bool ok = data != NULL ? g_key_file_load_from_data(kf, data, length, G_KEY_FILE_NONE, error)
                           : g_key_file_load_from_file(kf, path, G_KEY_FILE_NONE, error);
    if (!ok) {
        g_prefix_error(error, "%s: ", path);
        return NULL;
    }
    return g_steal_pointer(&kf);
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
            g_propagate_prefixed_error(error, local, "%s: [%s] %s: ", path, group, key->name);
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
