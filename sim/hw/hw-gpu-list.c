/* SPDX-License-Identifier: Apache-2.0 */
/* Lists of a node's GPUs ("0,3,4,7", as CUDA_VISIBLE_DEVICES names the
 * devices a job sees): parsed against a system's GPUs per node, checked
 * for GPUs it lacks and GPUs named twice, and formatted back. No units.
 */
#include "hw/hw-gpu-list.h"

static bool
fail(GError **error, const char *text, const char *why)
{
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "'%s': %s; expected distinct GPU numbers separated by commas, such as 0,3,4,7",
                text, why);
    return false;
}

bool
hw_gpu_list_parse(const HwSystem *system, const char *text, uint32_t **gpus, uint32_t *n_gpus,
                  GError **error)
{
    g_return_val_if_fail(system != NULL && text != NULL && gpus != NULL && n_gpus != NULL, false);
    *gpus = NULL;
    *n_gpus = 0;
    g_auto(GStrv) items = g_strsplit(text, ",", -1);
    guint n = g_strv_length(items);
    g_autofree uint32_t *list = g_new(uint32_t, MAX(n, 1));
    g_autofree bool *seen = g_new0(bool, MAX(system->n_gpus, 1));
    for (guint i = 0; i < n; i++) {
        const char *item = g_strstrip(items[i]);
        if (*item == '\0')
            return fail(error, text, n <= 1 ? "no GPU named" : "an empty entry");
        guint64 v;
        if (!g_ascii_string_to_unsigned(item, 10, 0, G_MAXUINT32, &v, NULL)) {
            g_autofree char *why = g_strdup_printf("'%s' is not a GPU number", item);
            return fail(error, text, why);
        }
        if (v >= system->n_gpus) {
            g_autofree char *why =
                g_strdup_printf("%s has GPUs 0 to %u on a node, not %" G_GUINT64_FORMAT, system->id,
                                system->n_gpus - 1, v);
            return fail(error, text, why);
        }
        if (seen[v]) {
            g_autofree char *why = g_strdup_printf("GPU %" G_GUINT64_FORMAT " is listed twice", v);
            return fail(error, text, why);
        }
        seen[v] = true;
        list[i] = (uint32_t)v;
    }
    if (n == 0)
        return fail(error, text, "no GPU named");
    *gpus = g_steal_pointer(&list);
    *n_gpus = n;
    return true;
}

char *
hw_gpu_list_format(const uint32_t *gpus, uint32_t n_gpus)
{
    GString *s = g_string_new(NULL);
    for (uint32_t i = 0; i < n_gpus; i++)
        g_string_append_printf(s, i == 0 ? "%u" : ",%u", gpus[i]);
    return g_string_free(s, FALSE);
}
