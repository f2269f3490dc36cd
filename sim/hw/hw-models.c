/* The models directory, found once per call from the environment and two
 * paths fixed at build time (see Makefile.am): the source tree's models/
 * so that an uninstalled build uses the files next to it, and the
 * installed copy under $(pkgdatadir); and the model ids in its folders.
 */
#include "hw/hw-models.h"

#include <string.h>

#ifndef NVLSIM_PKG_MODELS_DIR
#error "NVLSIM_PKG_MODELS_DIR must be defined by the build (Makefile.am)"
#endif

const char *
hw_models_dir(void)
{
    const char *env = g_getenv("NVLSIM_MODELS");
    if (env != NULL && *env != '\0')
        return env;
#ifdef NVLSIM_SRC_MODELS_DIR
    if (g_file_test(NVLSIM_SRC_MODELS_DIR, G_FILE_TEST_IS_DIR))
        return NVLSIM_SRC_MODELS_DIR;
#endif
    return NVLSIM_PKG_MODELS_DIR;
}

gboolean
hw_models_id_is_plain(const char *id)
{
    return id[0] != '\0' && id[0] != '.' && strchr(id, '/') == NULL && strchr(id, '\\') == NULL;
}

static int
compare_strings(gconstpointer a, gconstpointer b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

GPtrArray *
hw_models_ids(const char *folder, GError **error)
{
    g_autoptr(GDir) listing = g_dir_open(folder, 0, error);
    if (listing == NULL)
        return NULL;
    GPtrArray *ids = g_ptr_array_new_with_free_func(g_free);
    for (const char *entry; (entry = g_dir_read_name(listing)) != NULL;)
        if (entry[0] != '.' && g_str_has_suffix(entry, ".ini"))
            g_ptr_array_add(ids, g_strndup(entry, strlen(entry) - strlen(".ini")));
    g_ptr_array_sort(ids, compare_strings);
    return ids;
}

char *
hw_models_ids_joined(const char *folder)
{
    g_autoptr(GPtrArray) ids = hw_models_ids(folder, NULL);
    if (ids == NULL || ids->len == 0)
        return NULL;
    g_ptr_array_add(ids, NULL);
    return g_strjoinv(", ", (char **)ids->pdata);
}

char *
hw_models_file(const char *models_dir, const char *dir, const char *what, const char *id,
               GError **error)
{
    if (!hw_models_id_is_plain(id)) {
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                    "'%s' is not a plain model id; expected a file stem under %s/%s/", id,
                    models_dir, dir);
        return NULL;
    }
    g_autofree char *file = g_strconcat(id, ".ini", NULL);
    g_autofree char *path = g_build_filename(models_dir, dir, file, NULL);
    /* Anything there is the model's file: a folder or an unreadable file
     * is an error of its loader, which names it as such. */
    if (g_file_test(path, G_FILE_TEST_EXISTS))
        return g_steal_pointer(&path);
    g_autofree char *folder = g_build_filename(models_dir, dir, NULL);
    g_autofree char *known = hw_models_ids_joined(folder);
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
                "no %s%smodel '%s' (%s does not exist); expected one of: %s", what ? what : "",
                what ? " " : "", id, path, known ? known : "(none found)");
    return NULL;
}
