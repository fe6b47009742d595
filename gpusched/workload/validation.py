"""One line for a pydantic validation error: ``LABEL, KEY: what is wrong``.

Scenario files (:mod:`gpusched.workload.scenario`), sweep specs and model sidecars word their
errors the same way, e.g. ``scenario 'x.yaml', cluster.nodes[2].vram_gb: must be > 0 (got -16)``.
"""

from __future__ import annotations

from pydantic import ValidationError

from gpusched.errors import ScenarioError


def _format_loc(loc: tuple) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out or "(top level)"


def _format_error(err: dict) -> str:
    kind, ctx, value = err["type"], err.get("ctx", {}), err.get("input")
    ctx = {k: f"{v:g}" if isinstance(v, float) else v for k, v in ctx.items()}
    shown = repr(value)
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    got = f" (got {shown})" if not isinstance(value, dict | list) else ""
    messages = {
        "greater_than": f"must be > {ctx.get('gt')}{got}",
        "greater_than_equal": f"must be >= {ctx.get('ge')}{got}",
        "less_than_equal": f"must be <= {ctx.get('le')}{got}",
        "less_than": f"must be < {ctx.get('lt')}{got}",
        "finite_number": f"must be a finite number{got}",
        "extra_forbidden": "unknown key",
        "missing": "missing required key",
        "float_parsing": f"must be a number{got}",
        "float_type": f"must be a number{got}",
        "int_parsing": f"must be a whole number{got}",
        "int_type": f"must be a whole number{got}",
        "int_from_float": f"must be a whole number{got}",
        "bool_type": f"must be true or false{got}",
        "bool_parsing": f"must be true or false{got}",
        "string_too_short": "must not be empty",
        "too_short": "must not be empty",
    }
    if kind in messages:
        return messages[kind]
    if kind == "value_error":
        return str(ctx.get("error", err["msg"]))
    return err["msg"][0].lower() + err["msg"][1:] + got


def scenario_error(exc: ValidationError, source: str) -> ScenarioError:
    """The :class:`~gpusched.errors.ScenarioError` of a scenario that fails validation, naming
    ``source`` (its file name) and the first bad key."""
    return ScenarioError(validation_message(exc, f"scenario '{source}'"))


def validation_message(exc: ValidationError, label: str) -> str:
    """One line for the first error of a pydantic validation: ``LABEL, KEY: what is wrong``.

    Scenario files, sweep specs and model sidecars word their errors the same way.
    """
    err = exc.errors()[0]
    loc = tuple(p for p in err["loc"] if p not in ("function-after[_check_band()]",))
    return f"{label}, {_format_loc(loc)}: {_format_error(err)}"
