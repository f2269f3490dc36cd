/* SPDX-License-Identifier: Apache-2.0 */
/* Fixture for the layering check: a net-layer header (includes nothing). */
#pragma once
