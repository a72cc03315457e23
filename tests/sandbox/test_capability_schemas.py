"""Every capability's input schema is a valid JSON Schema (2020-12). Registration does not check
this at run time (it would cost each sandbox CLI process a tenth of a second), so this does."""

from __future__ import annotations

import jsonschema
import pytest

from pytest_ghxbench.ghx.registry import Capability, all_capabilities


@pytest.mark.parametrize("cap", all_capabilities(), ids=lambda cap: cap.id)
def test_input_schema_is_valid_json_schema(cap: Capability) -> None:
    jsonschema.Draft202012Validator.check_schema(cap.input_schema)
    assert cap.input_schema.get("type") == "object"


def test_a_broken_schema_would_be_caught() -> None:
    with pytest.raises(jsonschema.SchemaError):
        jsonschema.Draft202012Validator.check_schema({"type": "object", "required": "owner"})
