"""Statements numbered for binding by position read the same values as their named form."""

from __future__ import annotations

import sqlite3

import pytest

from checkout_desktop.store.sqlite.bound import positional


def test_each_name_gets_one_number_in_order_of_first_use() -> None:
    statement = positional("SELECT :b, :a, :b, :c")
    assert statement.sql == "SELECT ?1, ?2, ?1, ?3"
    assert statement.named == "SELECT :b, :a, :b, :c"  # for a connection that binds names only
    assert statement.values({"a": 1, "b": 2, "c": 3, "unused": 4}) == (2, 1, 3)


def test_a_single_name_is_still_a_tuple_of_values() -> None:
    statement = positional("SELECT * FROM t WHERE id = :id")
    assert statement.values({"id": 7}) == (7,)


def test_a_missing_value_is_an_error_not_a_null() -> None:
    with pytest.raises(KeyError):
        positional("SELECT :a, :b").values({"a": 1})


def test_a_statement_without_names_is_refused() -> None:
    with pytest.raises(ValueError, match="without named parameters"):
        positional("SELECT 1")


def test_sqlite_binds_the_numbered_form_as_it_binds_the_named_one() -> None:
    conn = sqlite3.connect(":memory:")
    named = "SELECT :now, :mcid, :now || '-' || :mcid, CASE WHEN :x THEN 1 ELSE 0 END"
    params = {"mcid": "charge-1", "now": "2026-11-24T00:00:00Z", "x": 0}
    statement = positional(named)
    assert (
        conn.execute(statement.sql, statement.values(params)).fetchone()
        == conn.execute(named, params).fetchone()
    )
