/* The key-table loader: GKeyFile group -> struct fields, units parsed once.
 *
 * Every error names the file, the group and the key, then what was wrong
 * and what was expected (the unit parser's message for values).
 */
#include "hw/hw-keys.h"

#include <string.h>

#include "core/core-units.h"

G_DEFINE_QUARK(hw - key - error - quark, hw_key_error)

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
        g_autofree char *text = g_key_file_get_string(kf, group, key->name, NULL);
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
