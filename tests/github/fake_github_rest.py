"""The REST routes of :class:`tests.github.fake_github.FakeGitHub`.

Route handlers take the fake and the routed :class:`Call` and return ``(status, payload,
headers)``, or raise :class:`Reply` for an error answer. They run under the fake's lock.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import re
import zlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tests.github.fake_github import FakeGitHub

JSON = dict[str, Any]
Answer = tuple[int, Any, dict[str, str]]
Route = Callable[["FakeGitHub", "Call"], Answer]
ROUTES: list[tuple[str, re.Pattern[str], Route]] = []


class Reply(Exception):
    """An error answer: ``status`` with GitHub's ``{"message", "errors"?}`` payload."""

    def __init__(self, status: int, message: str, errors: list[Any] | None = None) -> None:
        super().__init__(f"HTTP {status}: {message} {errors or ''}".strip())
        self.status = status
        self.payload: JSON = {"message": message}
        if errors is not None:
            self.payload["errors"] = errors


def invalid(resource: str, field: str, code: str = "missing_field") -> Reply:
    """GitHub's 422 for one invalid field."""
    return Reply(422, "Validation Failed", [{"resource": resource, "field": field, "code": code}])


def unprocessable(message: str) -> Reply:
    """GitHub's 422 whose ``errors`` are plain sentences (reviews answer like that)."""
    return Reply(422, "Unprocessable Entity", [message])


class Call:
    """One request inside the repository: its path after ``/repos/{owner}/{repo}``, the
    route's regex groups, query parameters and decoded JSON body."""

    def __init__(self, path: str, params: dict[str, str], body: Any) -> None:
        self.path = path
        self.params = params
        self.body = body
        self.groups: tuple[str, ...] = ()

    def fields(self) -> JSON:
        if self.body is None:
            return {}
        if not isinstance(self.body, dict):
            raise Reply(400, "Problems parsing JSON")
        return self.body

    def number(self) -> int:
        return int(self.groups[0])


def route(method: str, pattern: str) -> Callable[[Route], Route]:
    def register(handler: Route) -> Route:
        ROUTES.append((method, re.compile(pattern), handler))
        return handler

    return register


def _text(fields: JSON, key: str, resource: str) -> str:
    value = fields.get(key)
    if not isinstance(value, str) or not value.strip():
        raise invalid(resource, key)
    return value


# ---------------------------------------------------------------- repository and labels


@route("GET", "")
def get_repo(fake: FakeGitHub, call: Call) -> Answer:
    full_name = f"{fake.owner}/{fake.repo}"
    repo = {"id": zlib.crc32(full_name.encode()), "node_id": f"R_kw{fake.repo}"}
    repo.update(name=fake.repo, full_name=full_name, owner=fake._user(fake.owner))
    repo.update(default_branch=fake.default_branch, private=False, visibility="public")
    repo.update(html_url=fake.html, description=None, homepage=None, archived=False)
    repo.update(has_issues=True, stargazers_count=0, forks_count=0, subscribers_count=0)
    repo.update(language=None, license=None, topics=[], created_at="2025-01-01T00:00:00Z")
    repo.update(pushed_at="2025-01-01T00:00:00Z")
    repo["permissions"] = {"admin": True, "push": True, "pull": True}
    return 200, repo, {}


@route("GET", "/labels")
def list_labels(fake: FakeGitHub, call: Call) -> Answer:
    return fake._listed(call, list(fake.labels.values()))


@route("POST", "/labels")
def create_label(fake: FakeGitHub, call: Call) -> Answer:
    fields = call.fields()
    name = _text(fields, "name", "Label")
    if any(known.casefold() == name.casefold() for known in fake.labels):
        raise invalid("Label", "name", "already_exists")
    color, description = str(fields.get("color") or "ededed"), str(fields.get("description") or "")
    return 201, copy.deepcopy(fake._label(name, color, description)), {}


# ---------------------------------------------------------------- issues


@route("GET", "/issues")
def list_issues(fake: FakeGitHub, call: Call) -> Answer:
    state = call.params.get("state", "open")
    wanted = {n.strip().casefold() for n in call.params.get("labels", "").split(",") if n.strip()}
    assignee = call.params.get("assignee")
    chosen = [
        issue
        for issue in sorted(fake.issues.values(), key=lambda i: -int(i["number"]))
        if state in ("all", issue["state"])
        and wanted <= {label["name"].casefold() for label in issue["labels"]}
        and assignee in (None, *(a["login"] for a in issue["assignees"]))
    ]
    return fake._listed(call, chosen)


@route("POST", "/issues")
def create_issue(fake: FakeGitHub, call: Call) -> Answer:
    fields = call.fields()
    title = _text(fields, "title", "Issue")
    labels = [str(name) for name in fields.get("labels") or []]
    issue = fake._new_issue(title, str(fields.get("body") or ""), labels, None)
    return 201, copy.deepcopy(issue), {}


@route("GET", r"/issues/(\d+)")
def get_issue(fake: FakeGitHub, call: Call) -> Answer:
    return 200, copy.deepcopy(fake._found(fake.issues, call.number())), {}


_STATE_REASONS = (None, "completed", "not_planned", "duplicate", "reopened")


@route("PATCH", r"/issues/(\d+)")
def edit_issue(fake: FakeGitHub, call: Call) -> Answer:
    issue = fake._found(fake.issues, call.number())
    fields = call.fields()
    if "title" in fields:
        issue["title"] = _text(fields, "title", "Issue")
    if "body" in fields:
        issue["body"] = fields["body"] or None
    if "labels" in fields:
        issue["labels"] = [fake._label(str(name)) for name in fields["labels"] or []]
    state, reason = fields.get("state", issue["state"]), fields.get("state_reason")
    if state not in ("open", "closed"):
        raise invalid("Issue", "state", "invalid")
    if reason not in _STATE_REASONS:
        raise invalid("Issue", "state_reason", "invalid")
    now = fake._now()
    if state == "closed" and issue["state"] == "open":
        issue.update(state="closed", state_reason=reason or "completed", closed_at=now)
    elif state == "open" and issue["state"] == "closed":
        issue.update(state="open", state_reason="reopened", closed_at=None)
    elif reason is not None:
        issue["state_reason"] = reason
    issue["updated_at"] = now
    pull = fake.pulls.get(issue["number"])
    if pull is not None:
        pull.update(title=issue["title"], body=issue["body"], state=issue["state"])
        pull.update(closed_at=issue["closed_at"], updated_at=now)
    return 200, copy.deepcopy(issue), {}


@route("GET", r"/issues/(\d+)/comments")
def list_issue_comments(fake: FakeGitHub, call: Call) -> Answer:
    fake._found(fake.issues, call.number())
    return fake._listed(call, fake.comments[call.number()])


@route("POST", r"/issues/(\d+)/comments")
def create_issue_comment(fake: FakeGitHub, call: Call) -> Answer:
    fake._found(fake.issues, call.number())
    body = _text(call.fields(), "body", "IssueComment")
    return 201, fake.add_issue_comment(call.number(), body, author=fake.login), {}


@route("POST", r"/issues/(\d+)/labels")
def add_issue_labels(fake: FakeGitHub, call: Call) -> Answer:
    issue = fake._found(fake.issues, call.number())
    names = call.body.get("labels") if isinstance(call.body, dict) else call.body
    if not isinstance(names, list) or not names:
        raise invalid("Label", "labels")
    for name in names:
        label = fake._label(str(name))
        if label["name"] not in [known["name"] for known in issue["labels"]]:
            issue["labels"].append(label)
    issue["updated_at"] = fake._now()
    return 200, copy.deepcopy(issue["labels"]), {}


# ---------------------------------------------------------------- git refs and contents


def _ref(fake: FakeGitHub, ref: str) -> JSON:
    api = f"{fake.url}/repos/{fake.owner}/{fake.repo}/git"
    target = {"sha": fake.refs[ref], "type": "commit", "url": f"{api}/commits/{fake.refs[ref]}"}
    return {"ref": ref, "node_id": f"REF_kw{zlib.crc32(ref.encode())}", "object": target}


@route("GET", r"/git/ref/((?:heads|tags)/.+)")
def get_ref(fake: FakeGitHub, call: Call) -> Answer:
    ref = "refs/" + call.groups[0]
    if ref not in fake.refs:
        raise Reply(404, "Not Found")
    return 200, _ref(fake, ref), {}


@route("POST", "/git/refs")
def create_ref(fake: FakeGitHub, call: Call) -> Answer:
    fields = call.fields()
    ref, sha = fields.get("ref"), fields.get("sha")
    if not isinstance(ref, str) or not re.fullmatch(r"refs/[^/]+/.+", ref):
        raise Reply(422, "Reference name is invalid")
    if not isinstance(sha, str) or sha not in fake.trees:
        raise Reply(422, "Object does not exist")
    if ref in fake.refs:
        raise Reply(422, "Reference already exists")
    fake.refs[ref] = sha
    return 201, _ref(fake, ref), {}


@route("DELETE", r"/git/refs/((?:heads|tags)/.+)")
def delete_ref(fake: FakeGitHub, call: Call) -> Answer:
    ref = "refs/" + call.groups[0]
    if ref not in fake.refs:
        raise Reply(422, "Reference does not exist")
    if ref == f"refs/heads/{fake.default_branch}":
        raise Reply(422, "Cannot delete the default branch")
    del fake.refs[ref]
    for pull in fake.pulls.values():  # GitHub closes the pull requests of a deleted branch
        if f"refs/heads/{pull['head']['ref']}" == ref and pull["state"] == "open":
            pull.update(state="closed", closed_at=fake._now())
            fake.issues[pull["number"]].update(state="closed", closed_at=pull["closed_at"])
    return 204, None, {}


@route("PUT", r"/contents/(.+)")
def put_contents(fake: FakeGitHub, call: Call) -> Answer:
    fields, path = call.fields(), call.groups[0]
    for key in ("message", "content"):
        if not isinstance(fields.get(key), str):
            raise Reply(422, f'Invalid request.\n\n"{key}" wasn\'t supplied.')
    try:
        data = base64.b64decode(fields["content"], validate=True)
    except ValueError:
        raise Reply(422, "content is not valid Base64") from None
    branch = str(fields.get("branch") or fake.default_branch)
    ref = f"refs/heads/{branch}"
    if ref not in fake.refs:
        raise Reply(404, f"Branch {branch} not found")
    tree = dict(fake.trees[fake.refs[ref]])
    existing = tree.get(path)
    if existing is not None and fields.get("sha") is None:
        raise Reply(422, 'Invalid request.\n\n"sha" wasn\'t supplied.')
    if existing is not None and fields.get("sha") != existing:
        raise Reply(409, f"{path} does not match {fields.get('sha')}")
    blob = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
    commit = fake._sha(fake.refs[ref], path, blob, fields["message"])
    tree[path] = blob
    fake.trees[commit] = tree
    fake.refs[ref] = commit
    for pull in fake.pulls.values():
        if pull["head"]["ref"] == branch:
            pull["head"]["sha"] = commit
    content = {"name": path.rsplit("/", 1)[-1], "path": path, "sha": blob}
    content["html_url"] = f"{fake.html}/blob/{branch}/{path}"
    answer = {"content": content, "commit": {"sha": commit, "message": fields["message"]}}
    return (200 if existing else 201), answer, {}


# ---------------------------------------------------------------- pull requests and reviews


@route("GET", "/pulls")
def list_pulls(fake: FakeGitHub, call: Call) -> Answer:
    state = call.params.get("state", "open")
    pulls = sorted(fake.pulls.values(), key=lambda p: -int(p["number"]))
    return fake._listed(call, [p for p in pulls if state in ("all", p["state"])])


@route("POST", "/pulls")
def create_pull(fake: FakeGitHub, call: Call) -> Answer:
    fields = call.fields()
    title = _text(fields, "title", "PullRequest")
    head, base = _text(fields, "head", "PullRequest"), _text(fields, "base", "PullRequest")
    pull = fake._new_pull(title, head, base, str(fields.get("body") or ""), None)
    pull["draft"] = bool(fields.get("draft"))
    return 201, copy.deepcopy(pull), {}


@route("GET", r"/pulls/(\d+)")
def get_pull(fake: FakeGitHub, call: Call) -> Answer:
    return 200, copy.deepcopy(fake._found(fake.pulls, call.number())), {}


@route("PATCH", r"/pulls/(\d+)")
def edit_pull(fake: FakeGitHub, call: Call) -> Answer:
    pull = fake._found(fake.pulls, call.number())
    fields = call.fields()
    if fields.get("state", pull["state"]) not in ("open", "closed"):
        raise invalid("PullRequest", "state", "invalid")
    if "title" in fields:
        pull["title"] = _text(fields, "title", "PullRequest")
    if "body" in fields:
        pull["body"] = fields["body"] or None
    now = fake._now()
    state = fields.get("state", pull["state"])
    if state != pull["state"]:
        pull.update(state=state, closed_at=now if state == "closed" else None)
    pull["updated_at"] = now
    issue = fake.issues[pull["number"]]
    issue.update(title=pull["title"], body=pull["body"], state=pull["state"])
    issue.update(closed_at=pull["closed_at"], updated_at=now)
    return 200, copy.deepcopy(pull), {}


@route("GET", r"/pulls/(\d+)/reviews")
def list_reviews(fake: FakeGitHub, call: Call) -> Answer:
    fake._found(fake.pulls, call.number())
    return fake._listed(call, fake.reviews[call.number()])


_REVIEW_STATES = {
    "APPROVE": "APPROVED",
    "REQUEST_CHANGES": "CHANGES_REQUESTED",
    "COMMENT": "COMMENTED",
    None: "PENDING",
}


@route("POST", r"/pulls/(\d+)/reviews")
def create_review(fake: FakeGitHub, call: Call) -> Answer:
    pull = fake._found(fake.pulls, call.number())
    fields = call.fields()
    event, body = fields.get("event"), str(fields.get("body") or "")
    if event not in _REVIEW_STATES:
        raise unprocessable(f"Unexpected event: {event}")
    if event in ("APPROVE", "REQUEST_CHANGES") and pull["user"]["login"] == fake.login:
        verb = "approve" if event == "APPROVE" else "request changes on"
        raise unprocessable(f"Can not {verb} your own pull request")
    if event in ("REQUEST_CHANGES", "COMMENT") and not body.strip():
        raise unprocessable(f"Body is required for the {event} event")
    return 200, copy.deepcopy(fake._new_review(pull, _REVIEW_STATES[event], body, fake.login)), {}


@route("GET", r"/pulls/(\d+)/comments")
def list_review_comments(fake: FakeGitHub, call: Call) -> Answer:
    fake._found(fake.pulls, call.number())
    return fake._listed(call, fake.review_comments[call.number()])


@route("POST", r"/pulls/(\d+)/comments")
def create_review_comment(fake: FakeGitHub, call: Call) -> Answer:
    pull = fake._found(fake.pulls, call.number())
    fields = call.fields()
    body = _text(fields, "body", "PullRequestReviewComment")
    if fields.get("in_reply_to") is not None:
        first = next(
            (c for c in fake.review_comments[pull["number"]] if c["id"] == fields["in_reply_to"]),
            None,
        )
        if first is None:
            raise invalid("PullRequestReviewComment", "in_reply_to", "invalid")
        thread = next(t for t in fake.threads[pull["number"]] if first["id"] in t["comment_ids"])
        reply = fake._new_review_comment(
            pull, body, fake.login, first["path"], first["line"], first["side"]
        )
        reply["in_reply_to_id"] = thread["comment_ids"][0]
        thread["comment_ids"].append(reply["id"])
        return 201, copy.deepcopy(reply), {}
    commit_id = _text(fields, "commit_id", "PullRequestReviewComment")
    path = _text(fields, "path", "PullRequestReviewComment")
    line, side = fields.get("line"), fields.get("side", "RIGHT")
    if commit_id not in fake.trees:
        raise unprocessable("commit_id is not part of the pull request")
    if not isinstance(line, int) or isinstance(line, bool) or line < 1:
        raise invalid("PullRequestReviewComment", "line")
    if side not in ("LEFT", "RIGHT"):
        raise invalid("PullRequestReviewComment", "side", "invalid")
    comment = fake._new_review_comment(pull, body, fake.login, path, line, side)
    comment["commit_id"] = commit_id
    fake._new_thread(pull, comment)
    return 201, copy.deepcopy(comment), {}


# ---------------------------------------------------------------- releases


def _published_with_tag(fake: FakeGitHub, tag: str) -> JSON | None:
    return next(
        (r for r in fake.releases.values() if r["tag_name"] == tag and not r["draft"]), None
    )


@route("GET", "/releases")
def list_releases(fake: FakeGitHub, call: Call) -> Answer:
    return fake._listed(call, sorted(fake.releases.values(), key=lambda r: -int(r["id"])))


@route("POST", "/releases")
def create_release(fake: FakeGitHub, call: Call) -> Answer:
    fields = call.fields()
    tag = _text(fields, "tag_name", "Release")
    if not fields.get("draft") and _published_with_tag(fake, tag) is not None:
        raise invalid("Release", "tag_name", "already_exists")
    target = fields.get("target_commitish")
    if target and f"refs/heads/{target}" not in fake.refs and target not in fake.trees:
        raise invalid("Release", "target_commitish", "invalid")
    return 201, copy.deepcopy(fake._new_release(fields)), {}


@route("GET", r"/releases/tags/(.+)")
def get_release_by_tag(fake: FakeGitHub, call: Call) -> Answer:
    release = _published_with_tag(fake, call.groups[0])
    if release is None:
        raise Reply(404, "Not Found")
    return 200, copy.deepcopy(release), {}


@route("GET", r"/releases/(\d+)")
def get_release(fake: FakeGitHub, call: Call) -> Answer:
    return 200, copy.deepcopy(fake._found(fake.releases, call.number())), {}


@route("PATCH", r"/releases/(\d+)")
def edit_release(fake: FakeGitHub, call: Call) -> Answer:
    release = fake._found(fake.releases, call.number())
    fields = call.fields()
    for key in ("tag_name", "name", "body", "prerelease", "target_commitish"):
        if key in fields:
            release[key] = fields[key]
    if fields.get("draft") is False and release["draft"]:
        if _published_with_tag(fake, release["tag_name"]) is not None:
            raise invalid("Release", "tag_name", "already_exists")
        fake._publish(release)
    elif fields.get("draft") is True:
        release.update(draft=True, published_at=None)
    fake._release_url(release)
    return 200, copy.deepcopy(release), {}


@route("DELETE", r"/releases/(\d+)")
def delete_release(fake: FakeGitHub, call: Call) -> Answer:
    fake._found(fake.releases, call.number())
    del fake.releases[call.number()]
    return 204, None, {}


# ---------------------------------------------------------------- actions and checks


@route("GET", "/actions/runs")
def list_runs(fake: FakeGitHub, call: Call) -> Answer:
    status, branch = call.params.get("status"), call.params.get("branch")
    runs = [
        run
        for run in sorted(fake.runs.values(), key=lambda r: -int(r["id"]))
        if status in (None, run["status"], run["conclusion"])
        and branch in (None, run["head_branch"])
        and call.params.get("event") in (None, run["event"])
    ]
    return fake._listed(call, runs, "workflow_runs")


@route("GET", r"/actions/runs/(\d+)")
def get_run(fake: FakeGitHub, call: Call) -> Answer:
    return 200, copy.deepcopy(fake._found(fake.runs, call.number())), {}


@route("GET", r"/actions/runs/(\d+)/jobs")
def list_jobs(fake: FakeGitHub, call: Call) -> Answer:
    fake._found(fake.runs, call.number())
    return fake._listed(call, fake.jobs[call.number()], "jobs")


@route("GET", r"/commits/([^/]+)/check-runs")
def list_check_runs(fake: FakeGitHub, call: Call) -> Answer:
    ref = call.groups[0]
    sha = fake.refs.get(f"refs/heads/{ref}") or fake.refs.get(f"refs/tags/{ref}") or ref
    wanted = call.params.get("check_name")
    checks = [c for c in fake.check_runs if c["head_sha"] == sha and wanted in (None, c["name"])]
    return fake._listed(call, checks, "check_runs")
