/* SPDX-License-Identifier: Apache-2.0 */
/* A plain main for the fuzz targets, so that make check runs each target's
 * LLVMFuzzerTestOneInput over its committed inputs with the normal
 * compiler and no libFuzzer: the seed corpus and every input that once
 * made the target crash, leak or misbehave (tests/fuzz/corpus/NAME and
 * tests/fuzz/regress/NAME under $top_srcdir, NAME from the program's name
 * fuzz-NAME). Files or folders given as arguments are run instead. A
 * failing input crashes the program; it prints one line, the count.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

/* Runs the target over path, a file or a folder of files (sorted);
 * returns the inputs run. A missing path runs none. */
static unsigned
run_path(const char *path)
{
    if (!g_file_test(path, G_FILE_TEST_IS_DIR)) {
        g_autofree char *data = NULL;
        gsize size = 0;
        if (!g_file_get_contents(path, &data, &size, NULL))
            return 0;
        LLVMFuzzerTestOneInput((const uint8_t *)data, size);
        return 1;
    }
    g_autoptr(GDir) dir = g_dir_open(path, 0, NULL);
    g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
    for (const char *name; dir != NULL && (name = g_dir_read_name(dir)) != NULL;)
        g_ptr_array_add(names, g_build_filename(path, name, NULL));
    g_ptr_array_sort(names, (GCompareFunc)g_strcmp0);
    unsigned n = 0;
    for (guint i = 0; i < names->len; i++)
        n += run_path(names->pdata[i]);
    return n;
}

int
main(int argc, char **argv)
{
    g_autofree char *program = g_path_get_basename(argv[0]);
    unsigned n = 0;
    if (argc > 1) {
        for (int i = 1; i < argc; i++)
            n += run_path(argv[i]);
        printf("%s: %u inputs\n", program, n);
        return n > 0 ? 0 : 1;
    }
    const char *top = g_getenv("top_srcdir");
    if (top == NULL || !g_str_has_prefix(program, "fuzz-")) {
        fprintf(stderr, "%s: give inputs, or run as fuzz-NAME with top_srcdir set\n", program);
        return 2;
    }
    g_autofree char *name = g_strndup(program + 5, strcspn(program + 5, "."));
    g_autofree char *corpus = g_build_filename(top, "tests", "fuzz", "corpus", name, NULL);
    g_autofree char *regress = g_build_filename(top, "tests", "fuzz", "regress", name, NULL);
    unsigned n_corpus = run_path(corpus), n_regress = run_path(regress);
    printf("%s: %u corpus inputs, %u regression inputs\n", program, n_corpus, n_regress);
    return n_corpus > 0 ? 0 : 1;
}
