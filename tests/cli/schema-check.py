#!/usr/bin/python3
"""Hold every JSON document the CLI tier's tools printed to the tool's schema.

usage: schema-check.py SCHEMA_DIR LIST
  LIST: one line per item, "CASE<TAB>TOOL<TAB>FILE" (tests/cli/run.sh writes
  it): FILE is what TOOL printed when asked for JSON (-j, --json, --format
  json), checked against SCHEMA_DIR/TOOL.schema.json; one JSON document, or
  JSON lines (each line a document).  TOOL "-": FILE is the stdout of a case
  that asked no tool for JSON; JSON there (an object or an array, or lines of
  them) is JSON no schema covers, a failure.

Prints a FAIL line for each document that is not valid JSON or breaks its
schema (the case, the tool, the line, the path in the document and what is
wrong), then "schema: P passed, F failed".  Each document is one check.
Exit status 0 when nothing failed, 1 otherwise, 2 when the check itself could
not run (no python3-jsonschema, a schema that is not a valid schema).
"""
import json
import os
import sys

try:
    import jsonschema
    from jsonschema import Draft202012Validator
except ImportError as e:  # the tier fails, never skips, without its validator
    print(f"FAIL: schema: cannot import jsonschema ({e}): apt-get install python3-jsonschema")
    print("schema: 0 passed, 1 failed")
    sys.exit(2)


def strict_loads(text):
    """json.loads that refuses NaN/Infinity and duplicate keys."""
    def bad_constant(name):
        raise ValueError(f"{name} is not JSON")

    def pairs(items):
        d = {}
        for k, v in items:
            if k in d:
                raise ValueError(f"key {k!r} twice in one object")
            d[k] = v
        return d
    return json.loads(text, parse_constant=bad_constant, object_pairs_hook=pairs)


def documents(text):
    """(line, document) pairs: the whole text as one document, or JSON lines.
    Raises ValueError naming the line that is not JSON."""
    try:
        return [(0, strict_loads(text))]
    except ValueError as whole:
        lines = text.split("\n")
        if len(lines) < 2 or lines[-1] != "":
            raise ValueError(f"not a JSON document ({whole}) nor JSON lines ending in a newline")
        out = []
        for i, line in enumerate(lines[:-1], 1):
            try:
                out.append((i, strict_loads(line)))
            except ValueError as e:
                raise ValueError(f"line {i}: not JSON ({e})")
        return out


def where(error):
    path = "$"
    for p in error.absolute_path:
        path += f"[{p}]" if isinstance(p, int) else f".{p}"
    return path


def main():
    sdir, listing = sys.argv[1], sys.argv[2]
    validators = {}
    passed = failed = 0

    def fail(case, tool, msg):
        nonlocal failed
        failed += 1
        print(f"FAIL: {case}: {tool}: {msg}")

    with open(listing, encoding="utf-8") as f:
        items = [line.rstrip("\n").split("\t") for line in f if line.strip()]
    for case, tool, path in items:
        with open(path, "rb") as f:
            raw = f.read()
        if tool == "-":
            # a case that asked no tool for JSON: JSON on its stdout is JSON
            # no schema covers
            try:
                docs = documents(raw.decode("utf-8"))
            except (UnicodeDecodeError, ValueError):
                continue
            if docs and all(isinstance(d, (dict, list)) for _, d in docs):
                fail(case, "stdout", "JSON that no schema covers (no tool in the case was asked for JSON "
                     "with -j, --json or --format json)")
            continue
        if not raw:
            continue  # the tool printed nothing (an error, exit status 1 or 2)
        if tool not in validators:
            spath = os.path.join(sdir, f"{tool}.schema.json")
            try:
                with open(spath, encoding="utf-8") as sf:
                    schema = json.load(sf)
                Draft202012Validator.check_schema(schema)
                validators[tool] = Draft202012Validator(schema)
            except OSError:
                validators[tool] = None
            except (ValueError, jsonschema.SchemaError) as e:
                print(f"FAIL: schema: {spath}: not a valid schema: {str(e).splitlines()[0]}")
                print(f"schema: {passed} passed, {failed + 1} failed")
                sys.exit(2)
        v = validators[tool]
        if v is None:
            fail(case, tool, f"prints JSON and has no schema ({sdir}/{tool}.schema.json)")
            continue
        try:
            docs = documents(raw.decode("utf-8"))
        except UnicodeDecodeError as e:
            fail(case, tool, f"not UTF-8 ({e})")
            continue
        except ValueError as e:
            fail(case, tool, str(e))
            continue
        for line, doc in docs:
            errs = sorted(v.iter_errors(doc), key=lambda e: list(e.absolute_path))
            if not errs:
                passed += 1
                continue
            at = f"line {line}: " if line else ""
            best = jsonschema.exceptions.best_match(errs)
            # "is not valid under any of the given schemas" names no fault:
            # go down into the branch the document came nearest to (the
            # fewest errors, then the deepest)
            while best.validator in ("anyOf", "oneOf") and best.context:
                branches = {}
                for e in best.context:
                    branches.setdefault(e.relative_schema_path[0], []).append(e)
                near = min(branches.values(),
                           key=lambda v: (len(v), -max(len(e.absolute_path) for e in v)))
                best = jsonschema.exceptions.best_match(near)
            msg = best.message if len(best.message) < 300 else best.message[:300] + "..."
            more = f" (and {len(errs) - 1} more)" if len(errs) > 1 else ""
            fail(case, tool, f"{at}{where(best)}: {msg}{more}")
    print(f"schema: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
