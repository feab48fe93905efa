"""The contract itself and everything generated from it.

- openapi/afm.yaml: no YAML flow-mapping traps, Redocly's recommended rules clean, every operation
  documented (summary, description, tags, examples), every component used, links that resolve;
- generated/models.py and clients/python/ match it (and a changed contract is caught);
- `afm --help-json` lists exactly the flags `afm serve --help` shows.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.contract_support import EVENT_DATA, ROOT, SPEC_PATH, load_spec

sys.path.insert(0, str(ROOT / "tools"))

import gen_client  # noqa: E402

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
BIN = Path(sys.executable).parent

# Keywords an OpenAPI 3.0 Schema Object may hold (plus `x-` extensions).
SCHEMA_KEYWORDS = {
    "title", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
    "maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "maxProperties",
    "minProperties", "required", "enum", "type", "allOf", "oneOf", "anyOf", "not", "items",
    "properties", "additionalProperties", "description", "format", "default", "nullable",
    "discriminator", "readOnly", "writeOnly", "xml", "externalDocs", "example", "deprecated",
    "$ref",
}
# Subtrees holding free-form data, where a null value or any key is legitimate.
DATA_KEYS = {"example", "examples", "default", "enum"}


def operations(spec: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(method, path, op) for path, item in spec["paths"].items()
            for method, op in item.items() if method in METHODS]


def resolve(spec: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        target: Any = spec
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        node = target
    return node


# ---------------------------------------------------------------- YAML traps


def flow_mapping_traps(node: Any, path: str = "") -> list[str]:
    """Where YAML quietly made a key of a sentence fragment, as `{description: a, b}` does.

    Two symptoms: a key whose value is null outside example data (`b` above), and a key a
    Schema Object may not hold (`{description: a, e.g: b}`)."""
    problems: list[str] = []
    if isinstance(node, list):
        for i, item in enumerate(node):
            problems += flow_mapping_traps(item, f"{path}/{i}")
        return problems
    if not isinstance(node, dict):
        return problems
    for key, value in node.items():
        where = f"{path}/{key}"
        if key in DATA_KEYS:
            continue
        if value is None:
            problems.append(f"{where}: null value (an unquoted comma in a flow mapping?)")
        problems += flow_mapping_traps(value, where)
    return problems


def schema_keyword_problems(spec: dict[str, Any]) -> list[str]:
    """Keys that are not Schema Object keywords, in every schema of the document."""
    problems: list[str] = []

    def walk(schema: Any, where: str) -> None:
        if not isinstance(schema, dict):
            return
        for key in schema:
            if key not in SCHEMA_KEYWORDS and not str(key).startswith("x-"):
                problems.append(f"{where}: unexpected schema key {key!r}")
        for name, sub in (schema.get("properties") or {}).items():
            walk(sub, f"{where}/properties/{name}")
        for key in ("items", "additionalProperties", "not"):
            walk(schema.get(key), f"{where}/{key}")
        for key in ("allOf", "anyOf", "oneOf"):
            for i, sub in enumerate(schema.get(key) or []):
                walk(sub, f"{where}/{key}/{i}")

    def find(node: Any, where: str) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "schema" or key == EVENT_DATA:
                    walk(value, f"{where}/{key}")
                elif key not in DATA_KEYS:
                    find(value, f"{where}/{key}")
        elif isinstance(node, list):
            for i, item in enumerate(node):
                find(item, f"{where}/{i}")

    for name, schema in spec["components"]["schemas"].items():
        walk(schema, f"/components/schemas/{name}")
    find({k: v for k, v in spec.items() if k != "components"}, "")
    find({k: v for k, v in spec["components"].items() if k != "schemas"}, "/components")
    return problems


def test_no_flow_mapping_traps() -> None:
    spec = load_spec()
    assert flow_mapping_traps(spec) == []
    assert schema_keyword_problems(spec) == []


def test_trap_detection_catches_the_known_mistakes() -> None:
    trapped = yaml.safe_load("""
components:
  schemas:
    A:
      properties:
        max_tokens: {type: integer, description: Output limit; defaults to 8, capped by the window.}
        user: {type: string, description: Any text, e.g: an email.}
      example: {expires_at: null}
paths: {}
""")
    assert flow_mapping_traps(trapped) == [
        "/components/schemas/A/properties/max_tokens/capped by the window.: null value "
        "(an unquoted comma in a flow mapping?)"]
    assert schema_keyword_problems(trapped) == [
        "/components/schemas/A/properties/max_tokens: unexpected schema key "
        "'capped by the window.'",
        "/components/schemas/A/properties/user: unexpected schema key 'e.g'"]


# ---------------------------------------------------------------- Redocly


def test_redocly_lint_clean() -> None:
    """Redocly CLI (pinned in package.json, installed by `npm ci`), recommended rules; the
    deliberate exceptions are listed with reasons in .redocly.lint-ignore.yaml."""
    redocly = ROOT / "node_modules" / ".bin" / "redocly"
    if not redocly.exists():
        pytest.fail("Redocly CLI is not installed: run `npm ci` in the repository root")
    proc = subprocess.run([str(redocly), "lint", "--format=json"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    report = json.loads(proc.stdout[proc.stdout.index("{"):])
    problems = [f"{p['ruleId']} {p['location'][0]['pointer']}: {p['message']}"
                for p in report["problems"] if p.get("ignored") is not True]
    assert report["totals"]["errors"] == 0 and report["totals"]["warnings"] == 0, problems
    assert proc.returncode == 0, proc.stderr


# ---------------------------------------------------------------- documentation


def test_every_operation_is_documented() -> None:
    spec = load_spec()
    declared_tags = {t["name"] for t in spec["tags"]}
    ids = [op["operationId"] for _, _, op in operations(spec)]
    assert len(ids) == len(set(ids)), "duplicate operationId"
    problems = []
    for method, path, op in operations(spec):
        label = f"{method.upper()} {path}"
        for field in ("summary", "description", "operationId"):
            if not str(op.get(field) or "").strip():
                problems.append(f"{label}: no {field}")
        if not op.get("tags") or not set(op["tags"]) <= declared_tags:
            problems.append(f"{label}: tags {op.get('tags')} not among the declared tags")
        body = resolve(spec, op.get("requestBody") or {})
        for media, content in (body.get("content") or {}).items():
            if "example" not in content and "examples" not in content:
                problems.append(f"{label}: request {media} has no example")
        params = [resolve(spec, p) for p in [*spec["paths"][path].get("parameters", []),
                                              *op.get("parameters", [])]]
        takes_input = bool(body) or any(p["in"] in ("path", "query") for p in params)
        codes = [str(code) for code in op["responses"]]
        if takes_input and not any(code.startswith("4") for code in codes):
            problems.append(f"{label}: takes input but documents no 4XX response")
        for code, response in op["responses"].items():
            response = resolve(spec, response)
            if not response.get("description"):
                problems.append(f"{label} {code}: no description")
            for media, content in (response.get("content") or {}).items():
                schema = resolve(spec, content.get("schema") or {})
                binary = schema.get("format") == "binary"
                if not binary and "example" not in content and "examples" not in content:
                    problems.append(f"{label} {code} {media}: no example")
    assert problems == []


def test_event_streams_name_their_chunk_schema() -> None:
    spec = load_spec()
    problems = []
    for method, path, op in operations(spec):
        for code, response in op["responses"].items():
            content = resolve(spec, response).get("content") or {}
            if "text/event-stream" not in content:
                continue
            data = content["text/event-stream"].get(EVENT_DATA)
            refs = [s["$ref"] for s in (data or {}).get("oneOf", [data] if data else [])]
            if not refs:
                problems.append(f"{method.upper()} {path} {code}: no {EVENT_DATA}")
            for ref in refs:
                resolve(spec, {"$ref": ref})  # KeyError if it names nothing
    assert problems == []


def test_every_component_is_used() -> None:
    """Extensions included (Redocly's no-unused-components does not follow them)."""
    spec = load_spec()
    text = SPEC_PATH.read_text()
    unused = [f"{kind}/{name}" for kind, items in spec["components"].items() for name in items
              if kind != "securitySchemes" and f"#/components/{kind}/{name}\"" not in text]
    assert unused == []
    # security schemes are named by security requirements, not referenced
    named = {name for requirement in spec.get("security", []) for name in requirement}
    assert set(spec["components"].get("securitySchemes", {})) <= named


def test_nullable_enums_list_null() -> None:
    """OpenAPI 3.0.3: `nullable` does not extend an `enum`; null must be listed to be valid
    (Schemathesis reads it so; Connexion is more lenient)."""
    problems: list[str] = []

    def walk(node: Any, where: str) -> None:
        if isinstance(node, dict):
            if node.get("nullable") is True and "enum" in node and None not in node["enum"]:
                problems.append(where)
            for key, value in node.items():
                if key not in ("example", "examples"):
                    walk(value, f"{where}/{key}")
        elif isinstance(node, list):
            for i, item in enumerate(node):
                walk(item, f"{where}/{i}")

    walk(load_spec(), "")
    assert problems == []


def test_links_resolve() -> None:
    spec = load_spec()
    by_id = {op["operationId"]: (path, op) for _, path, op in operations(spec)}
    problems = []
    for method, path, op in operations(spec):
        for code, response in op["responses"].items():
            for name, link in (resolve(spec, response).get("links") or {}).items():
                where = f"{method.upper()} {path} {code} link {name}"
                if link.get("operationId") not in by_id:
                    problems.append(f"{where}: unknown operationId")
                    continue
                target_path, target = by_id[link["operationId"]]
                params = {resolve(spec, p)["name"] for p in
                          [*spec["paths"][target_path].get("parameters", []),
                           *target.get("parameters", [])]}
                problems += [f"{where}: {p} is not a parameter of the target"
                             for p in link.get("parameters", {}) if p not in params]
                body = resolve(spec, target.get("requestBody") or {})
                fields = set()
                for content in (body.get("content") or {}).values():
                    fields |= set(resolve(spec, content["schema"]).get("properties", {}))
                problems += [f"{where}: body field {f} is not in the target's body"
                             for f in link.get("requestBody") or {} if f not in fields]
    assert problems == []


# ---------------------------------------------------------------- generated code


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=300)


def changed_contract(tmp_path: Path) -> Path:
    """A copy of the contract with one new response field."""
    spec = yaml.safe_load(SPEC_PATH.read_text())
    spec["components"]["schemas"]["Model"]["properties"]["drift_probe"] = {"type": "string"}
    path = tmp_path / "afm.yaml"
    path.write_text(yaml.safe_dump(spec, sort_keys=False))
    return path


def test_models_match_the_contract() -> None:
    proc = run(str(BIN / "datamodel-codegen"), "--check")
    assert proc.returncode == 0, "generated/models.py drifted; run datamodel-codegen\n" + \
        proc.stdout[-5000:]


def test_models_drift_check_catches_a_changed_contract(tmp_path: Path) -> None:
    proc = run(str(BIN / "datamodel-codegen"), "--input", str(changed_contract(tmp_path)),
               "--check")
    assert proc.returncode == 1
    assert "drift_probe" in proc.stdout


@pytest.mark.skipif(shutil.which("ruff", path=str(BIN)) is None, reason="needs ruff")
def test_client_matches_the_contract() -> None:
    assert gen_client.drift() == []


def test_client_drift_check_catches_a_changed_contract(tmp_path: Path) -> None:
    lines = gen_client.drift(spec=changed_contract(tmp_path))
    assert "differs: afm_client/models/model.py" in lines
    assert any("drift_probe" in line for line in lines)


# ---------------------------------------------------------------- CLI card


def _help_flags(text: str) -> set[str]:
    return {flag for flag in re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", text)
            if flag not in ("-h", "--help")}


def test_help_json_lists_every_flag_of_help() -> None:
    """The card and `--help` come from one table (afm.cli.FLAGS): the same flags, choices and
    defaults."""
    card = json.loads(run(sys.executable, "-m", "afm", "--help-json").stdout)
    text = run(sys.executable, "-m", "afm", "serve", "--help").stdout
    usage, _, options = text.partition("\n\n")
    card_flags = {name for flag in card["flags"] for name in flag["names"]}
    assert _help_flags(options) == card_flags
    for flag in card["flags"]:
        for choice in flag["choices"] or []:
            assert choice in text, (flag["names"], choice)
        if flag["default"] not in (None, False) and flag["type"] != "bool":
            assert f"(default: {flag['default']})" in " ".join(text.split()), flag["names"]
    paths = [next(word for word in e.split() if word.startswith("/"))
             for e in card["capabilities"]["endpoints"]]
    for path in load_spec()["paths"]:
        assert any(path.startswith(p.rstrip("*")) for p in paths), f"{path} not in the card"
