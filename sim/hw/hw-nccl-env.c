/* SPDX-License-Identifier: Apache-2.0 */
/* NCCL's environment on a system (hw-nccl-env.h). */
#include "hw/hw-nccl-env.h"

#include <stddef.h>
#include <string.h>

/* What the keys load into: the environment, and NCCL_NVLS_ENABLE as NCCL
 * takes it (0 off, 1 on, 2 on where supported: NCCL's default). */
typedef struct NcclSpec {
    HwNcclEnv env;
    uint64_t nvls_enable;
} NcclSpec;

#define NCCL_SPEC(f) offsetof(NcclSpec, f)
#define NVLS_ENABLE_DEFAULT 2

static const HwKey nccl_keys[] = {
    {"buffsize", HW_KEY_SIZE_BYTES, NCCL_SPEC(env.buffsize_bytes), false,
     "NCCL_BUFFSIZE: the Simple protocol's buffer a connection (default NCCL's 4 MiB)"},
    {"p2p_net_chunksize", HW_KEY_SIZE_BYTES, NCCL_SPEC(env.p2p_net_chunk_bytes), false,
     "NCCL_P2P_NET_CHUNKSIZE: a p2p step between nodes (default NCCL's 128 KiB)"},
    {"nvls_chunksize", HW_KEY_SIZE_BYTES, NCCL_SPEC(env.nvls_chunk_bytes), false,
     "NCCL_NVLS_CHUNKSIZE: an NVLS chunk (default NCCL's, 128 KiB on Hopper)"},
    {"nvlstree_max_chunksize", HW_KEY_SIZE_BYTES, NCCL_SPEC(env.nvls_tree_max_chunk_bytes), false,
     "NCCL_NVLSTREE_MAX_CHUNKSIZE: the largest NVLS-tree chunk (default NCCL's)"},
    {"nvls_enable", HW_KEY_COUNT, NCCL_SPEC(nvls_enable), false,
     "NCCL_NVLS_ENABLE: 0 turns NVLink SHARP off (no NVLS, no NVLS-tree); 1 or 2 (default) "
     "leave it to the switches"},
};

const HwKeyTable hw_nccl_key_table = {"models/system/ID.ini", "nccl", nccl_keys,
                                      G_N_ELEMENTS(nccl_keys)};

bool
hw_nccl_env_load(GKeyFile *kf, const char *path, HwNcclEnv *env, GError **error)
{
    if (!g_key_file_has_group(kf, "nccl"))
        return true;
    NcclSpec spec = {.env = *env, .nvls_enable = env->nvls_off ? 0 : NVLS_ENABLE_DEFAULT};
    if (!hw_keys_load(kf, path, "nccl", nccl_keys, G_N_ELEMENTS(nccl_keys), &spec, error) ||
        !hw_keys_check_range(path, "nccl", "nvls_enable", spec.nvls_enable, 0, 2, error))
        return false;
    spec.env.nvls_off = spec.nvls_enable == 0;
    *env = spec.env;
    return true;
}

/* The [nccl] key of variable name (NCCL_ and the key in capitals); NULL
 * when nvlsim does not model it. */
static const HwKey *
variable_key(const char *name)
{
    if (!g_str_has_prefix(name, "NCCL_"))
        return NULL;
    for (size_t i = 0; i < G_N_ELEMENTS(nccl_keys); i++) {
        g_autofree char *upper = g_ascii_strup(nccl_keys[i].name, -1);
        if (strcmp(name + strlen("NCCL_"), upper) == 0)
            return &nccl_keys[i];
    }
    return NULL;
}

bool
hw_nccl_env_parse(const char *text, HwNcclEnv *env, GError **error)
{
    bool seen[G_N_ELEMENTS(nccl_keys)] = {false};
    HwNcclEnv set = *env;
    g_auto(GStrv) words = g_strsplit_set(text, " ,\t", -1);
    for (char **w = words; *w != NULL; w++) {
        if (**w == '\0')
            continue;
        const char *eq = strchr(*w, '=');
        g_autofree char *name = eq != NULL ? g_strndup(*w, (gsize)(eq - *w)) : g_strdup(*w);
        const HwKey *key = variable_key(name);
        if (key == NULL || eq == NULL || eq[1] == '\0') {
            GString *names = g_string_new(NULL);
            for (size_t i = 0; i < G_N_ELEMENTS(nccl_keys); i++) {
                g_autofree char *upper = g_ascii_strup(nccl_keys[i].name, -1);
                g_string_append_printf(names, "%sNCCL_%s", i > 0 ? ", " : "", upper);
            }
            hw_keys_failf(error, "'%s': expected NAME=VALUE with NAME one of %s", *w, names->str);
            g_string_free(names, TRUE);
            return false;
        }
        if (seen[key - nccl_keys])
            return hw_keys_failf(error, "%s is set twice; expected each variable once", name);
        seen[key - nccl_keys] = true;
        /* NCCL reads sizes as bytes: a bare number is one. */
        const char *value = eq + 1;
        bool digits = strspn(value, "0123456789") == strlen(value);
        g_autofree char *given = digits && key->kind == HW_KEY_SIZE_BYTES
                                     ? g_strconcat(value, "B", NULL)
                                     : g_strdup(value);
        /* One variable at a time, so that an error names it as the run set it. */
        g_autoptr(GKeyFile) one = g_key_file_new();
        g_key_file_set_value(one, "nccl", key->name, given);
        g_autoptr(GError) why = NULL;
        if (!hw_nccl_env_load(one, "", &set, &why)) {
            g_autofree char *prefix = g_strdup_printf("[nccl] %s: ", key->name);
            const char *what = strstr(why->message, prefix);
            return hw_keys_failf(error, "%s: %s", name,
                                 what != NULL ? what + strlen(prefix) : why->message);
        }
    }
    *env = set;
    return true;
}

char *
hw_nccl_env_text(const HwNcclEnv *env)
{
    GString *text = g_string_new(NULL);
    const struct {
        const char *name;
        uint64_t bytes;
    } sizes[] = {
        {"NCCL_BUFFSIZE", env->buffsize_bytes},
        {"NCCL_P2P_NET_CHUNKSIZE", env->p2p_net_chunk_bytes},
        {"NCCL_NVLS_CHUNKSIZE", env->nvls_chunk_bytes},
        {"NCCL_NVLSTREE_MAX_CHUNKSIZE", env->nvls_tree_max_chunk_bytes},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(sizes); i++)
        if (sizes[i].bytes > 0)
            g_string_append_printf(text, "%s%s=%" G_GUINT64_FORMAT, text->len > 0 ? " " : "",
                                   sizes[i].name, sizes[i].bytes);
    if (env->nvls_off)
        g_string_append_printf(text, "%sNCCL_NVLS_ENABLE=0", text->len > 0 ? " " : "");
    return g_string_free(text, FALSE);
}
