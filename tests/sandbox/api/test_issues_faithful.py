"""Issues, milestones and the repository answered as GitHub answers them, through the item's
API server:

- anyone with write access edits or deletes any issue comment; without it only their own;
- a locked conversation shows why (``active_lock_reason``);
- ``GET /issues`` filters on ``milestone`` and ``type`` (a value, ``*`` any, ``none``);
- milestones are created (a taken title is ``already_exists``), closed, refused a state
  outside open/closed, and deleted (their issues lose them);
- reactions to an issue are added (once per content), listed, counted on the issue, deleted,
  and content outside GitHub's set is a 422;
- ``collaborators/{username}`` is 204 or 404; ``orgs/{org}`` an organization or 404;
- ``actions/runs?created=`` takes GitHub's date ranges;
- the new state survives a save and load, and a world without it dumps as before.

Each behaviour has its control.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytest_ghxbench.sandbox.backend import SandboxSession
from pytest_ghxbench.sandbox.manifest import fresh_world
from pytest_ghxbench.sandbox.statefile import init_state, load_world, save_world

REPO = "/repos/acme-labs/tinykv"
MONAS_COMMENT = 2650000011  # on issue 5


def ask(item: SandboxSession, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    """Status and body of GitHub's answer (errors are answers too)."""
    answer = item.client().request(method, path, body=body, ok_statuses=(403, 404, 422))
    return answer.status, answer.data


def numbers(item: SandboxSession, query: str) -> list[int]:
    status, found = ask(item, "GET", f"{REPO}/issues?{query}")
    assert status == 200, found
    return [i["number"] for i in found]


def gap_kinds(item: SandboxSession) -> list[str]:
    return [g["kind"] for g in item.sandbox_gaps()]


# ---------------------------------------------------------------- comments


def test_a_writer_edits_and_deletes_anyones_comment(item: SandboxSession) -> None:
    status, edited = ask(
        item, "PATCH", f"{REPO}/issues/comments/{MONAS_COMMENT}", {"body": "Edited."}
    )
    assert status == 200, edited
    assert (edited["body"], edited["user"]["login"]) == ("Edited.", "mona")
    assert edited["updated_at"] > edited["created_at"]
    assert ask(item, "DELETE", f"{REPO}/issues/comments/{MONAS_COMMENT}")[0] == 204
    _, left = ask(item, "GET", f"{REPO}/issues/5/comments")
    assert [c["id"] for c in left] == [2650000012, 2650000013]
    assert gap_kinds(item) == []


def test_without_write_access_only_ones_own_comment_changes(item: SandboxSession) -> None:
    world = item.world
    world.collaborators.remove(world.viewer)
    status, refused = ask(
        item, "PATCH", f"{REPO}/issues/comments/{MONAS_COMMENT}", {"body": "Edited."}
    )
    assert (status, refused["message"]) == (403, "Must have admin rights to Repository.")
    assert ask(item, "DELETE", f"{REPO}/issues/comments/{MONAS_COMMENT}")[0] == 403
    # control: the viewer's own comment
    _, mine = ask(item, "POST", f"{REPO}/issues/3/comments", {"body": "Seen it."})
    status, edited = ask(item, "PATCH", f"{REPO}/issues/comments/{mine['id']}", {"body": "Ok."})
    assert (status, edited["body"]) == (200, "Ok.")
    assert ask(item, "DELETE", f"{REPO}/issues/comments/{mine['id']}")[0] == 204


def test_a_locked_conversation_shows_its_reason(item: SandboxSession) -> None:
    lock = f"{REPO}/issues/6/lock"
    assert ask(item, "PUT", lock, {"lock_reason": "off-topic"})[0] == 204
    shown = ask(item, "GET", f"{REPO}/issues/6")[1]
    assert (shown["locked"], shown["active_lock_reason"]) == (True, "off-topic")
    assert ask(item, "PUT", f"{REPO}/issues/6/lock", {"lock_reason": "boring"})[0] == 422
    assert ask(item, "DELETE", lock)[0] == 204
    shown = ask(item, "GET", f"{REPO}/issues/6")[1]
    assert (shown["locked"], shown["active_lock_reason"]) == (False, None)
    # control: locked without a reason
    assert ask(item, "PUT", lock)[0] == 204
    shown = ask(item, "GET", f"{REPO}/issues/6")[1]
    assert (shown["locked"], shown["active_lock_reason"]) == (True, None)


# ---------------------------------------------------------------- list filters


def test_issues_filter_on_the_milestone(item: SandboxSession) -> None:
    assert numbers(item, "milestone=*") == [7, 4, 5, 3, 1]
    assert numbers(item, "milestone=none") == [8, 6]
    assert numbers(item, "milestone=2") == []
    assert numbers(item, "milestone=1") == [7, 4, 5, 3, 1]
    # control: no milestone parameter, every open issue and pull request
    assert numbers(item, "") == [8, 6, 7, 4, 5, 3, 1]
    assert gap_kinds(item) == []


def test_issues_filter_on_the_issue_type(item: SandboxSession) -> None:
    assert numbers(item, "type=Bug") == [5, 3]
    assert numbers(item, "type=bug") == [5, 3]
    typed = numbers(item, "type=*")
    untyped = numbers(item, "type=none")
    assert set(typed) | set(untyped) == {8, 6, 7, 4, 5, 3, 1}
    assert not set(typed) & set(untyped) and 7 in untyped  # a pull request has no type
    assert numbers(item, "type=NoSuchType") == []
    assert gap_kinds(item) == []


# ---------------------------------------------------------------- milestones


def test_a_milestone_is_created_with_the_next_number(item: SandboxSession) -> None:
    body = {"title": "v0.6.0", "due_on": "2026-06-30T00:00:00Z", "description": "Next"}
    status, made = ask(item, "POST", f"{REPO}/milestones", body)
    assert status == 201
    assert (made["number"], made["state"], made["title"], made["open_issues"]) == (
        3,
        "open",
        "v0.6.0",
        0,
    )
    assert (made["due_on"], made["description"], made["closed_at"]) == (
        "2026-06-30T00:00:00Z",
        "Next",
        None,
    )
    assert made["created_at"] == made["updated_at"] > "2026-03-01"
    assert ask(item, "GET", f"{REPO}/milestones/3")[1]["title"] == "v0.6.0"


def test_a_taken_milestone_title_is_refused(item: SandboxSession) -> None:
    status, refused = ask(item, "POST", f"{REPO}/milestones", {"title": "V0.4.0"})
    assert status == 422
    assert refused["errors"] == [
        {"resource": "Milestone", "code": "already_exists", "field": "title"}
    ]
    status, refused = ask(item, "PATCH", f"{REPO}/milestones/2", {"title": "v0.4.0"})
    assert status == 422 and refused["errors"][0]["code"] == "already_exists"
    assert ask(item, "POST", f"{REPO}/milestones", {})[0] == 422
    # control: a milestone keeps its own title, and a new title is free
    assert ask(item, "PATCH", f"{REPO}/milestones/1", {"title": "v0.4.0"})[0] == 200
    assert ask(item, "POST", f"{REPO}/milestones", {"title": "v1.0.0"})[0] == 201


def test_a_closed_milestone_leaves_the_open_list(item: SandboxSession) -> None:
    status, closed = ask(item, "PATCH", f"{REPO}/milestones/2", {"state": "closed"})
    assert (status, closed["state"]) == (200, "closed")
    assert closed["closed_at"] is not None
    titles = [m["title"] for m in ask(item, "GET", f"{REPO}/milestones")[1]]
    assert titles == ["v0.4.0"]
    every = ask(item, "GET", f"{REPO}/milestones?state=all")[1]
    assert sorted(m["title"] for m in every) == ["v0.4.0", "v0.5.0"]
    # control: reopened, it is back and has no closing time
    _, reopened = ask(item, "PATCH", f"{REPO}/milestones/2", {"state": "open"})
    assert (reopened["state"], reopened["closed_at"]) == ("open", None)
    assert len(ask(item, "GET", f"{REPO}/milestones")[1]) == 2


def test_a_milestone_state_outside_open_and_closed_is_refused(item: SandboxSession) -> None:
    assert ask(item, "PATCH", f"{REPO}/milestones/2", {"state": "bogus"})[0] == 422
    assert ask(item, "PATCH", f"{REPO}/milestones/99", {"state": "closed"})[0] == 404
    assert item.world.milestone(2).state == "OPEN"  # type: ignore[union-attr]


def test_a_deleted_milestone_leaves_its_issues(item: SandboxSession) -> None:
    assert ask(item, "DELETE", f"{REPO}/milestones/1")[0] == 204
    assert ask(item, "GET", f"{REPO}/milestones/1")[0] == 404
    assert ask(item, "GET", f"{REPO}/issues/3")[1]["milestone"] is None
    assert numbers(item, "milestone=*") == []
    assert ask(item, "DELETE", f"{REPO}/milestones/1")[0] == 404
    # control: the other milestone stays
    assert [m["number"] for m in ask(item, "GET", f"{REPO}/milestones")[1]] == [2]


# ---------------------------------------------------------------- reactions


def test_a_reaction_counts_on_the_issue(item: SandboxSession) -> None:
    reactions = f"{REPO}/issues/3/reactions"
    status, made = ask(item, "POST", reactions, {"content": "+1"})
    assert (status, made["content"], made["user"]["login"]) == (201, "+1", "bench-bot")
    again = item.client().request("POST", reactions, body={"content": "+1"})
    assert (again.status, again.data["id"]) == (200, made["id"])  # once per content
    assert ask(item, "POST", reactions, {"content": "heart"})[0] == 201
    rollup = ask(item, "GET", f"{REPO}/issues/3")[1]["reactions"]
    assert (rollup["total_count"], rollup["+1"], rollup["heart"], rollup["-1"]) == (2, 1, 1, 0)
    assert [r["content"] for r in ask(item, "GET", reactions)[1]] == ["+1", "heart"]
    assert [r["content"] for r in ask(item, "GET", f"{reactions}?content=heart")[1]] == ["heart"]
    assert ask(item, "DELETE", f"{reactions}/{made['id']}")[0] == 204
    assert ask(item, "GET", f"{REPO}/issues/3")[1]["reactions"]["total_count"] == 1
    # control: another issue has none
    assert ask(item, "GET", f"{REPO}/issues/5")[1]["reactions"]["total_count"] == 0


def test_a_reaction_outside_githubs_set_is_refused(item: SandboxSession) -> None:
    assert ask(item, "POST", f"{REPO}/issues/3/reactions", {"content": "party"})[0] == 422
    assert ask(item, "POST", f"{REPO}/issues/999/reactions", {"content": "eyes"})[0] == 404
    assert ask(item, "GET", f"{REPO}/issues/3/reactions")[1] == []
    # control: one of the set, on a pull request seen as an issue
    assert ask(item, "POST", f"{REPO}/issues/7/reactions", {"content": "rocket"})[0] == 201


# ---------------------------------------------------------------- people and runs


def test_collaborators_and_organizations(item: SandboxSession) -> None:
    assert ask(item, "GET", f"{REPO}/collaborators/octocat")[0] == 204
    assert ask(item, "GET", f"{REPO}/collaborators/no-such-user-42")[0] == 404
    status, org = ask(item, "GET", "/orgs/acme-labs")
    assert (status, org["login"], org["type"], org["name"]) == (
        200,
        "acme-labs",
        "Organization",
        "ACME Labs",
    )
    assert org["public_repos"] == 1
    assert ask(item, "GET", "/orgs/mona")[0] == 404  # a user, not an organization
    assert ask(item, "GET", "/orgs/no-such-org-42")[0] == 404


def test_workflow_runs_filter_on_their_creation_date(item: SandboxSession) -> None:
    def runs(created: str) -> list[int]:
        found = ask(item, "GET", f"{REPO}/actions/runs?created={created}")[1]
        return [r["id"] for r in found["workflow_runs"]]

    assert runs("2026-02-27") == [13500000003]
    assert runs("<2026-02-01") == [13500000001]
    assert runs(">=2026-02-02") == [13500000003, 13500000002]
    assert runs("2026-01-01..2026-02-02") == [13500000002, 13500000001]
    assert runs("2026-02-03..*") == [13500000003]
    # control: no filter, every run
    assert len(runs("*..*")) == 3
    assert gap_kinds(item) == []


# ---------------------------------------------------------------- state


def test_milestones_and_reactions_survive_a_save_and_load(tmp_path: Path) -> None:
    from pytest_ghxbench.sandbox.operations.registry import apply

    state = tmp_path / "state.json"
    init_state(state)
    world = load_world(state)
    apply(world, "issues/create-milestone", {"title": "v0.6.0", "state": "closed"})
    issue = world.issue(3)
    assert issue is not None
    apply(world, "addReaction", {"subjectId": issue.node_id, "content": "THUMBS_UP"})
    save_world(state, world)
    again = load_world(state)
    assert again.model_dump() == world.model_dump()
    made = again.milestone(3)
    assert made is not None and made.closed_at is not None and made.created_at is not None
    assert [r.content for r in again.issue(3).reactions] == ["+1"]  # type: ignore[union-attr]


def test_a_world_without_the_new_state_dumps_as_before() -> None:
    dumped = fresh_world().model_dump()
    assert all("reactions" not in i for i in dumped["issues"] + dumped["pull_requests"])
    assert all(
        set(m) == {"number", "title", "node_id", "description", "state", "due_on"}
        for m in dumped["milestones"]
    )
