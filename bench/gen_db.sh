#!/bin/sh
# bench/gen_db.sh - makes a large culprit database for the viewer: the
# schema and identity of a real one (SMALL.db, made by this culprit's
# prof), with its tree replaced by N generated contexts: a tree with 8
# children per node, 5000 procedures, work and effort at every context
# (effort stored only where the database does not compute it from work).
#
# usage: bench/gen_db.sh SMALL.db OUT.db N
set -eu
small=$1 out=$2 n=$3
cp "$small" "$out"
sqlite3 "$out" > /dev/null <<SQL
PRAGMA journal_mode = OFF;
PRAGMA synchronous = OFF;
BEGIN;
DELETE FROM stored_contexts;
DELETE FROM stored_names;
DELETE FROM stored_values;
DELETE FROM stored_thread_values;
DELETE FROM procedure_metrics;
DELETE FROM diagnoses;
DROP INDEX IF EXISTS contexts_parent;
-- Names 1-5000: the procedures; then the kinds, module and file.
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 4999)
INSERT INTO stored_names (id, name) SELECT i + 1, 'proc_' || i FROM k;
INSERT INTO stored_names (id, name) VALUES (5001, 'root'), (5002, 'frame'),
    (5003, '<program root>'), (5004, '/opt/app/bin/app'), (5005, '/opt/app/src/app.c');
WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < $n)
INSERT INTO stored_contexts (id, parent_id, depth, kind_id, procedure_id, module_id, file_id, line)
SELECT i, CASE WHEN i = 1 THEN NULL ELSE (i - 2) / 8 + 1 END, 0,
       CASE WHEN i = 1 THEN 5001 ELSE 5002 END,
       CASE WHEN i = 1 THEN 5003 ELSE 1 + i % 5000 END,
       CASE WHEN i = 1 THEN NULL ELSE 5004 END,
       CASE WHEN i = 1 THEN NULL ELSE 5005 END,
       CASE WHEN i = 1 THEN NULL ELSE 1 + i % 997 END
FROM k;
INSERT INTO stored_values (context_id, metric_id, inclusive, exclusive)
SELECT c.id, m.id, ($n - c.id + 1) * 1e-6, 1e-6 FROM stored_contexts c, metrics m
WHERE m.event = 'cputime' AND m.derived_from IS NULL AND m.metric IN ('work', 'effort')
ORDER BY c.id, m.id;
INSERT INTO procedure_metrics (procedure, module, file, event, metric, inclusive, exclusive)
SELECT procedure, module, file, 'cputime', 'work', max($n - id + 1) * 1e-6, count(*) * 1e-6
FROM contexts GROUP BY procedure, module, file;
UPDATE metrics SET total = $n * 1e-6 WHERE event = 'cputime' AND metric IN ('work', 'effort');
CREATE INDEX contexts_parent ON stored_contexts(parent_id);
COMMIT;
SQL
