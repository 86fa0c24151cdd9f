/* commands.h - culprit's subcommands, each `int cmd_NAME(argc, argv)`
 * returning the command's exit status (tools.h).  Defined where each
 * command lives; dispatched by driver/culprit.c. */
#ifndef CULPRIT_COMMANDS_H
#define CULPRIT_COMMANDS_H

int cmd_run(int argc, char **argv);	/* driver/run.c */
int cmd_dump(int argc, char **argv);	/* driver/dump.c */
int cmd_scale(int argc, char **argv);	/* driver/scale.c */
int cmd_prof(int argc, char **argv);	/* postmortem/prof.c */
int cmd_report(int argc, char **argv);	/* report/report.c */
int cmd_view(int argc, char **argv);	/* viewer-tui/view.c */
int cmd_export(int argc, char **argv);	/* export/export.c */
int cmd_diff(int argc, char **argv);	/* report/diff.c */

#endif
