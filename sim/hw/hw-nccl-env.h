/* SPDX-License-Identifier: Apache-2.0 */
/* NCCL's environment: the NCCL_* variables that change what NCCL does on a
 * system, as its software sets them (a system file's [nccl] group: a
 * network plugin's platform defaults) or as a run set them (a measurement
 * row's nccl_env column, "NCCL_NVLS_ENABLE=0 NCCL_BUFFSIZE=16777216").
 * Each key is the variable's name after NCCL_, in small letters.
 */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "hw/hw-keys.h"

/* 0 or false: NCCL's own default. */
typedef struct HwNcclEnv {
    uint64_t buffsize_bytes;            /* NCCL_BUFFSIZE: Simple's buffer */
    uint64_t p2p_net_chunk_bytes;       /* NCCL_P2P_NET_CHUNKSIZE */
    uint64_t nvls_chunk_bytes;          /* NCCL_NVLS_CHUNKSIZE */
    uint64_t nvls_tree_max_chunk_bytes; /* NCCL_NVLSTREE_MAX_CHUNKSIZE */
    bool nvls_off;                      /* NCCL_NVLS_ENABLE=0: no NVLS, no NVLS-tree */
} HwNcclEnv;

/* The [nccl] group's keys, for listings. */
extern const HwKeyTable hw_nccl_key_table;

/* Sets on env what the [nccl] group of kf (the file at path) gives; false
 * and an error "PATH: [nccl] key: what" on a bad value. */
bool hw_nccl_env_load(GKeyFile *kf, const char *path, HwNcclEnv *env, GError **error);

/* Sets on env the variables text assigns ("NCCL_NVLS_ENABLE=0
 * NCCL_BUFFSIZE=16777216", separated by spaces or commas; values as the
 * [nccl] keys take them, or a bare number of bytes as NCCL reads sizes:
 * 16777216 or 16MiB). False and an error naming the
 * variable on one nvlsim does not model, one given twice, or a bad value;
 * env is then unchanged. */
bool hw_nccl_env_parse(const char *text, HwNcclEnv *env, GError **error);

/* The variables env sets apart from NCCL's defaults, as a run would set
 * them ("NCCL_BUFFSIZE=16777216 NCCL_NVLS_ENABLE=0"); "" when none. Newly
 * allocated. */
char *hw_nccl_env_text(const HwNcclEnv *env);
