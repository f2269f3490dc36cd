/* SPDX-License-Identifier: Apache-2.0 */
/* Quantities with units, parsed once at the edge into integers.
 *
 * Text such as "250ns", "4MiB", "450GB/s", "400Gbit/s", "989TFLOP/s" becomes
 * picoseconds, bytes, bytes per second or FLOP per second. Units are case
 * sensitive because "GB/s" (bytes) and "Gb/s" (bits) differ by a factor of 8.
 * Decimal prefixes are powers of 1000 (KB, GB/s), binary ones powers of 1024
 * (KiB, GiB/s). A number may have a fraction and an exponent ("1.5e3ns");
 * the value is converted exactly and rounded to the nearest integer unit,
 * except sizes, which must come to a whole number of bytes.
 */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#define SIM_UNITS_ERROR (sim_units_error_quark())
GQuark sim_units_error_quark(void);

typedef enum SimUnitsError {
    SIM_UNITS_ERROR_SYNTAX, /* not a number */
    SIM_UNITS_ERROR_UNIT,   /* missing or unknown unit */
    SIM_UNITS_ERROR_RANGE,  /* negative, zero where forbidden, too large, not whole */
} SimUnitsError;

/* Each parser stores the value in *out and returns TRUE, or sets error
 * (naming the text and what was expected) and returns FALSE, leaving *out
 * unchanged. Surrounding blanks and blanks between number and unit are
 * allowed. */

/* Time (ps ns us µs ms s) in picoseconds. */
bool sim_units_parse_time_ps(const char *text, uint64_t *out_ps, GError **error);

/* Size (B KB MB GB TB KiB MiB GiB TiB) in bytes; must be whole bytes. */
bool sim_units_parse_size_bytes(const char *text, uint64_t *out_bytes, GError **error);

/* Bandwidth in bytes (B/s ... TB/s, KiB/s ... TiB/s) or bits (bit/s,
 * kbit/s ... Tbit/s, kb/s ... Tb/s) per second, in bytes per second; must be
 * positive. */
bool sim_units_parse_bandwidth_bytes_per_s(const char *text, uint64_t *out_bytes_per_s,
                                           GError **error);

/* Arithmetic rate (FLOP/s, MFLOP/s ... PFLOP/s) in FLOP per second; positive. */
bool sim_units_parse_rate_flops_per_s(const char *text, uint64_t *out_flops_per_s, GError **error);

/* A count without unit ("100000", "1e5"); must be a whole number. */
bool sim_units_parse_count(const char *text, uint64_t *out, GError **error);
