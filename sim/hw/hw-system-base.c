/* SPDX-License-Identifier: Apache-2.0 */
/* A system file that derives from another ([system] base = ID): a
 * cluster's own file holds what its runs measured (nvlsim calibrate
 * cluster writes one) and takes everything else from the shipped model it
 * is an instance of. The base's keys are read first and the file's are
 * laid over them, key by key; the base may not derive from a third.
 */
#include "hw/hw-system.h"

#include "hw/hw-keys.h"
#include "hw/hw-models.h"

bool
hw_system_merge_base(GKeyFile *kf, const char *path, const char *models_dir, GError **error)
{
    if (!g_key_file_has_key(kf, "system", "base", NULL))
        return true;
    g_autofree char *id = hw_keys_get_string(kf, "system", "base", error);
    if (id == NULL)
        return false;
    GError *missing = NULL;
    g_autofree char *base_path = hw_models_find(models_dir, "system", "system", id, &missing);
    if (base_path == NULL) {
        hw_keys_fail(error, path, "system", "base", "%s", missing->message);
        g_error_free(missing);
        return false;
    }
    g_autoptr(GKeyFile) base = hw_keys_open(base_path, "a model file", NULL, NULL, 0, error);
    if (base == NULL)
        return false;
    if (g_key_file_has_key(base, "system", "base", NULL))
        return hw_keys_fail(error, path, "system", "base",
                            "%s derives from another system itself; expected a system without "
                            "base",
                            id);
    /* The file's keys over the base's (comments are not carried). */
    gsize n_groups;
    g_auto(GStrv) groups = g_key_file_get_groups(kf, &n_groups);
    for (gsize g = 0; g < n_groups; g++) {
        gsize n_keys;
        g_auto(GStrv) keys = g_key_file_get_keys(kf, groups[g], &n_keys, NULL);
        for (gsize k = 0; k < n_keys; k++) {
            if (g_str_equal(groups[g], "system") && g_str_equal(keys[k], "base"))
                continue;
            g_autofree char *value = g_key_file_get_value(kf, groups[g], keys[k], NULL);
            g_key_file_set_value(base, groups[g], keys[k], value);
        }
    }
    g_autofree char *merged = g_key_file_to_data(base, NULL, NULL);
    return g_key_file_load_from_data(kf, merged, (gsize)-1, G_KEY_FILE_NONE, error);
}
