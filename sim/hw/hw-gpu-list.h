/* SPDX-License-Identifier: Apache-2.0 */
/* A list of a node's GPUs as a user names them ("0,3,4,7", the form of
 * CUDA_VISIBLE_DEVICES): which GPUs of each node a communicator uses, rank
 * i of a node on the i-th listed. Description only.
 */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "hw/hw-system.h"

/* Parses text, GPU numbers of one node of system separated by commas
 * (spaces around a number allowed), into a new array *gpus (g_free) of
 * *n_gpus entries in the listed order. False and a G_OPTION_ERROR_BAD_VALUE
 * error naming what was wrong (an empty list or number, a number that is
 * not one, a GPU the node does not have, a GPU listed twice); then *gpus
 * is NULL. */
bool hw_gpu_list_parse(const HwSystem *system, const char *text, uint32_t **gpus, uint32_t *n_gpus,
                       GError **error);

/* "0,3,4,7": the list as hw_gpu_list_parse reads it (g_free). */
char *hw_gpu_list_format(const uint32_t *gpus, uint32_t n_gpus);
