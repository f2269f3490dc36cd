/* SPDX-License-Identifier: Apache-2.0 */
/* nvlsim explain's options, shared by its two halves: explain coll
 * (cli-explain-coll.c) and explain run (cli-explain.c). */
#pragma once

#include <glib.h>

typedef struct ExplainOptions {
    char *system, *collective, *op, *bytes, *gpus, *gpus_per_node, *nodes, *domains, *algo, *proto, *harness,
        *launch_mode;
    gboolean cuda_graph;
    gboolean collnet;
    char **sets;
} ExplainOptions;

/* explain coll with options o and the collective named after coll (NULL:
 * none): returns the exit status. */
int cli_explain_coll(const ExplainOptions *o, const char *collective);
