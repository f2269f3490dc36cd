/* Fixture for the layering check: a net-layer header (includes nothing). */
#pragma once
