/* SPDX-License-Identifier: Apache-2.0 */
/* The models search path: the user's folders ($NVLSIM_MODELS) before the
 * shipped models of the data folder (core-data.h), each laid out as
 * models/ is, the first that has a file winning; and the model ids in
 * them. A lookup checks every folder of the path, so that a mistyped
 * folder is an error even when the shipped models have the file.
 */
#include "hw/hw-models.h"

#include <string.h>

#include "core/core-data.h"

const char *
hw_models_dir(void)
{
    g_autofree char *shipped = sim_data_path("models");
    const char *env = g_getenv("NVLSIM_MODELS");
    g_autofree char *path = env != NULL && *env != '\0'
                                ? g_strjoin(G_SEARCHPATH_SEPARATOR_S, env, shipped, NULL)
                                : g_strdup(shipped);
    return g_intern_string(path);
}

GStrv
hw_models_folders(const char *models_dir)
{
    g_auto(GStrv) parts = g_strsplit(models_dir, G_SEARCHPATH_SEPARATOR_S, -1);
    GPtrArray *folders = g_ptr_array_new();
    for (char **p = parts; *p != NULL; p++)
        if (**p != '\0')
            g_ptr_array_add(folders, g_strdup(*p));
    g_ptr_array_add(folders, NULL);
    return (GStrv)g_ptr_array_free(folders, FALSE);
}

/* Whether folder is one of $NVLSIM_MODELS's. */
static bool
from_environment(const char *folder)
{
    const char *env = g_getenv("NVLSIM_MODELS");
    if (env == NULL)
        return false;
    g_auto(GStrv) folders = hw_models_folders(env);
    return g_strv_contains((const char *const *)folders, folder);
}

bool
hw_models_check(const char *models_dir, GError **error)
{
    g_auto(GStrv) folders = hw_models_folders(models_dir);
    if (folders[0] == NULL) {
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
                    "no models folder given; expected a folder laid out as models/");
        return false;
    }
    for (char **f = folders; *f != NULL; f++) {
        if (g_file_test(*f, G_FILE_TEST_IS_DIR))
            continue;
        const char *what =
            g_file_test(*f, G_FILE_TEST_EXISTS) ? "is not a folder" : "no such folder";
        g_autofree char *shipped = sim_data_path("models");
        if (from_environment(*f))
            g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
                        "NVLSIM_MODELS: %s: %s; expected folders laid out as models/ "
                        "(system/, gpu/ ...), separated by ':'",
                        *f, what);
        else if (strcmp(*f, shipped) == 0)
            g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
                        "%s: %s: the shipped models are not where this nvlsim looks for them "
                        "(%s; see nvlsim --version)",
                        *f, what, sim_data_origin_name(sim_data_origin()));
        else
            g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT, "%s: %s of models", *f, what);
        return false;
    }
    return true;
}

gboolean
hw_models_id_is_plain(const char *id)
{
    return id[0] != '\0' && id[0] != '.' && strchr(id, '/') == NULL && strchr(id, '\\') == NULL;
}

gboolean
hw_models_ref_is_path(const char *ref)
{
    return strchr(ref, '/') != NULL || g_str_has_suffix(ref, ".ini");
}

static int
compare_strings(gconstpointer a, gconstpointer b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Adds the ids of folder (one of kind dir) to ids; a folder that is not
 * there adds none. */
static bool
add_ids(GPtrArray *ids, const char *folder, GError **error)
{
    if (!g_file_test(folder, G_FILE_TEST_EXISTS))
        return true;
    g_autoptr(GDir) listing = g_dir_open(folder, 0, error);
    if (listing == NULL)
        return false;
    for (const char *entry; (entry = g_dir_read_name(listing)) != NULL;)
        if (entry[0] != '.' && g_str_has_suffix(entry, ".ini"))
            g_ptr_array_add(ids, g_strndup(entry, strlen(entry) - strlen(".ini")));
    return true;
}

GPtrArray *
hw_models_ids(const char *models_dir, const char *dir, GError **error)
{
    if (!hw_models_check(models_dir, error))
        return NULL;
    g_auto(GStrv) folders = hw_models_folders(models_dir);
    g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func(g_free);
    for (char **f = folders; *f != NULL; f++) {
        g_autofree char *folder = g_build_filename(*f, dir, NULL);
        if (!add_ids(all, folder, error))
            return NULL;
    }
    g_ptr_array_sort(all, compare_strings);
    GPtrArray *ids = g_ptr_array_new_with_free_func(g_free);
    for (guint i = 0; i < all->len; i++)
        if (ids->len == 0 || strcmp(g_ptr_array_index(ids, ids->len - 1), all->pdata[i]) != 0)
            g_ptr_array_add(ids, g_strdup(all->pdata[i]));
    return ids;
}

char *
hw_models_ids_joined(const char *models_dir, const char *dir)
{
    g_autoptr(GPtrArray) ids = hw_models_ids(models_dir, dir, NULL);
    if (ids == NULL || ids->len == 0)
        return NULL;
    g_ptr_array_add(ids, NULL);
    return g_strjoinv(", ", (char **)ids->pdata);
}

char *
hw_models_missing(const char *models_dir, const char *dir, const char *id)
{
    g_auto(GStrv) folders = hw_models_folders(models_dir);
    g_autofree char *file = g_strconcat(id, ".ini", NULL);
    if (folders[0] != NULL && folders[1] == NULL) {
        g_autofree char *path = g_build_filename(folders[0], dir, file, NULL);
        return g_strdup_printf("%s does not exist", path);
    }
    g_autofree char *in = g_strjoinv(", ", folders);
    return g_strdup_printf("%s/%s does not exist in %s", dir, file, in);
}

char *
hw_models_file(const char *models_dir, const char *dir, const char *what, const char *id,
               GError **error)
{
    if (!hw_models_check(models_dir, error))
        return NULL;
    g_auto(GStrv) folders = hw_models_folders(models_dir);
    if (!hw_models_id_is_plain(id)) {
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                    "'%s' is not a plain model id; expected a file stem under %s/%s/", id,
                    folders[0], dir);
        return NULL;
    }
    g_autofree char *file = g_strconcat(id, ".ini", NULL);
    for (char **f = folders; *f != NULL; f++) {
        g_autofree char *path = g_build_filename(*f, dir, file, NULL);
        /* Anything there is the model's file: a folder or an unreadable
         * file is an error of its loader, which names it as such. */
        if (g_file_test(path, G_FILE_TEST_EXISTS))
            return g_steal_pointer(&path);
    }
    g_autofree char *missing = hw_models_missing(models_dir, dir, id);
    g_autofree char *known = hw_models_ids_joined(models_dir, dir);
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
                "no %s%smodel '%s' (%s); expected one of: %s", what ? what : "", what ? " " : "",
                id, missing, known ? known : "(none found)");
    return NULL;
}

char *
hw_models_find(const char *models_dir, const char *dir, const char *what, const char *ref,
               GError **error)
{
    if (!hw_models_ref_is_path(ref))
        return hw_models_file(models_dir, dir, what, ref, error);
    if (g_file_test(ref, G_FILE_TEST_EXISTS))
        return g_strdup(ref);
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
                "%s: no such %s%sfile; expected a %s id or the path of a file", ref,
                what ? what : "", what ? " " : "", what ? what : "model");
    return NULL;
}
