/* SPDX-License-Identifier: Apache-2.0 */
/* The range property of a key table, shared by the runners that can load
 * its files (test-topo: the hardware models and [faults]; test-work: the
 * scenario groups). For every key of a kind with a range (hw_key_range),
 * values at each bound, just inside, just outside, ones that round to a
 * bound in double and nextafter's neighbours are loaded; exactly the
 * documented range must be what is accepted. */
#pragma once

#include <check.h>
#include <glib.h>
#include <stdbool.h>

#include "hw/hw-keys.h"

/* Loads a minimal valid file of table t with key set to value (text as a
 * file writes it); true when accepted, else false and an error. */
typedef bool (*RangeWalkLoad)(const HwKeyTable *t, const HwKey *key, const char *value,
                              GError **error);

/* Checks every ranged key of t through load, failing the test with the
 * table, key and value on a mismatch:
 *   - a probability's documented range is [0, 1), a share's (0, 1] (the
 *     physics: an error rate of 1 never delivers, a share of 0 never
 *     finishes);
 *   - a plain number outside its range, or one that rounds outside it, is
 *     refused with "'VALUE' is out of range: expected RANGE" (RANGE from
 *     hw_key_range_text), NaN and infinities as not a number;
 *   - the middle of the range is accepted, and so is every value inside
 *     it, unless a rule of its own refuses it ("VALUE leaves ...": what a
 *     rate may not fall below), never the range error;
 *   - a quantity of a unit kind just outside its range is refused with
 *     the range error; at each bound it is not (a loader may narrow the
 *     range with a check of its own, in other words).
 * Returns the number of values tried. */
unsigned range_walk(const HwKeyTable *t, RangeWalkLoad load);
