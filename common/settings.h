/* settings.h - the settings culprit run hands the collector through the
 * environment, with their ranges: one definition for the driver, which
 * refuses a bad value before the program starts, and the collector, which
 * reads them. */
#ifndef CULPRIT_SETTINGS_H
#define CULPRIT_SETTINGS_H

/* CULPRIT_MAX_DEPTH: the most frames a sample keeps.  Deeper paths keep
 * their innermost frames and their outermost ones around a marker. */
#define SETTING_MAX_DEPTH_MIN 4u
#define SETTING_MAX_DEPTH_MAX (1u << 20)
#define SETTING_MAX_DEPTH_DEFAULT 65536u

/* CULPRIT_MAX_NODES: the most calling-context tree nodes per thread. */
#define SETTING_MAX_NODES_MIN 16u
#define SETTING_MAX_NODES_MAX (1u << 30)
#define SETTING_MAX_NODES_DEFAULT (1u << 20)

#endif
