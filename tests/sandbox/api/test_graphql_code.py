"""GraphQL reads of the repository's code: ``Repository.object`` (commits, trees, blobs, tags),
commit history, blame and changes, refs, languages and the community files, each checked
against what git itself says about the world's repository."""

from __future__ import annotations

import subprocess
from typing import Any

import pygit2

from pytest_ghxbench.sandbox.api.rest.links import user_node_id
from pytest_ghxbench.sandbox.api.rest.render_git import commit_node_id
from pytest_ghxbench.sandbox.state import World
from tests.code import commit_on, protect
from tests.sandbox.api.test_graphql import graphql

REPO = 'repository(owner:"acme-labs",name:"tinykv")'


def repo(world: World, fields: str, variables: dict[str, Any] | None = None) -> Any:
    """``repository { fields }``, which must answer without errors."""
    params = ", ".join(f"${k}: {t}" for k, t in _types(variables))
    query = f"query({params}){{{REPO}{{{fields}}}}}" if params else f"{{{REPO}{{{fields}}}}}"
    answer = graphql(world, query, variables)
    assert "errors" not in answer, answer["errors"]
    return answer["data"]["repository"]


_TYPES = {
    "id": "ID!",
    "sha": "GitObjectID!",
    "head": "GitObjectID!",
    "merge": "GitObjectID!",
    "fix": "GitObjectID!",
}


def _types(variables: dict[str, Any] | None) -> list[tuple[str, str]]:
    return [(k, _TYPES.get(k, "String!")) for k in variables or {}]


def git(world: World, *args: str) -> str:
    """The real git's answer about the world's repository."""
    done = subprocess.run(
        ["git", "--git-dir", str(world.git.path), *args], capture_output=True, check=True
    )
    return done.stdout.decode()


def main_sha(world: World) -> str:
    return git(world, "rev-parse", "main").strip()


# ---------------------------------------------------------------- Repository.object


def test_object_of_a_file_is_its_blob(world: World) -> None:
    found = repo(
        world,
        'object(expression:"main:README.md"){__typename oid abbreviatedOid commitUrl id '
        "... on Blob{text byteSize isBinary isTruncated}}",
    )["object"]
    text = git(world, "show", "main:README.md")
    oid = git(world, "rev-parse", "main:README.md").strip()
    assert found == {
        "__typename": "Blob",
        "oid": oid,
        "abbreviatedOid": oid[:7],
        "commitUrl": f"http://github.localhost/acme-labs/tinykv/commit/{oid}",
        "id": found["id"],
        "text": text,
        "byteSize": len(text.encode()),
        "isBinary": False,
        "isTruncated": False,
    }


def test_object_of_a_directory_is_its_tree_with_full_paths(world: World) -> None:
    tree = repo(
        world,
        'object(expression:"HEAD:src/tinykv"){... on Tree{oid entries{name path type mode oid '
        "extension language{name} size lineCount object{__typename}}}}",
    )["object"]
    listed = git(world, "ls-tree", "-l", "main:src/tinykv").splitlines()
    assert [e["name"] for e in tree["entries"]] == [line.split("\t")[1] for line in listed]
    store = next(e for e in tree["entries"] if e["name"] == "store.py")
    text = git(world, "show", "main:src/tinykv/store.py")
    assert store == {
        "name": "store.py",
        "path": "src/tinykv/store.py",
        "type": "blob",
        "mode": 0o100644,
        "oid": git(world, "rev-parse", "main:src/tinykv/store.py").strip(),
        "extension": ".py",
        "language": {"name": "Python"},
        "size": len(text.encode()),
        "lineCount": len(text.splitlines()),
        "object": {"__typename": "Blob"},
    }


def test_root_tree_entries_of_a_commit_and_a_dotfile_without_extension(world: World) -> None:
    commit = repo(
        world, 'object(expression:"main"){... on Commit{tree{entries{name type extension mode}}}}'
    )["object"]
    entries = {e["name"]: e for e in commit["tree"]["entries"]}
    assert entries["src"] == {"name": "src", "type": "tree", "extension": "", "mode": 0o40000}
    assert entries[".gitignore"]["extension"] == ""


def test_object_by_commit_expression_or_oid_and_unknown_ones(world: World) -> None:
    sha = main_sha(world)
    found = repo(
        world,
        'a:object(expression:"main"){__typename oid} b:object(oid:$sha){__typename oid} '
        'c:object(expression:"main:no/such/file"){oid} d:object(expression:"nope"){oid} '
        'e:object(expression:"main~1"){oid}',
        {"sha": sha},
    )
    assert found["a"] == found["b"] == {"__typename": "Commit", "oid": sha}
    assert found["c"] is None and found["d"] is None
    assert found["e"]["oid"] == git(world, "rev-parse", "main~1").strip()


def test_an_annotated_tag_is_a_tag_object(world: World) -> None:
    sha = main_sha(world)
    tagger = pygit2.Signature("Mona Lisa", "mona@users.noreply.github.com", 1772366400, 0)
    world.git.repo.create_tag(
        "v0.4.0-rc1", pygit2.Oid(hex=sha), pygit2.enums.ObjectType.COMMIT, tagger, "First RC\n"
    )
    tag = repo(
        world,
        'object(expression:"v0.4.0-rc1"){__typename ... on Tag{name message '
        "tagger{name email user{login}} target{__typename oid}}}",
    )["object"]
    assert tag == {
        "__typename": "Tag",
        "name": "v0.4.0-rc1",
        "message": "First RC\n",
        "tagger": {
            "name": "Mona Lisa",
            "email": "mona@users.noreply.github.com",
            "user": {"login": "mona"},
        },
        "target": {"__typename": "Commit", "oid": sha},
    }


def test_git_objects_are_nodes(world: World) -> None:
    sha = main_sha(world)
    ids = repo(
        world,
        'c:object(expression:"main"){id} t:object(expression:"main:src"){id} '
        'b:object(expression:"main:README.md"){id}',
    )
    assert ids["c"]["id"] == commit_node_id(sha)  # what REST's commit says
    for key, typename in (("c", "Commit"), ("t", "Tree"), ("b", "Blob")):
        answer = graphql(world, "query($id:ID!){node(id:$id){__typename id}}", ids[key])
        assert answer["data"]["node"] == {"__typename": typename, "id": ids[key]["id"]}


# ---------------------------------------------------------------- commits

HISTORY = (
    "defaultBranchRef{target{... on Commit{history(first:$n, after:$after, path:$path){"
    "totalCount pageInfo{hasNextPage endCursor} nodes{oid}}}}}"
)


def history(world: World, **args: Any) -> Any:
    variables = {"n": args.get("n", 100), "after": args.get("after"), "path": args.get("path")}
    query = "query($n:Int,$after:String,$path:String){" + REPO + "{" + HISTORY + "}}"
    answer = graphql(world, query, variables)
    assert "errors" not in answer, answer
    return answer["data"]["repository"]["defaultBranchRef"]["target"]["history"]


def test_history_is_git_log_and_pages(world: World) -> None:
    log = git(world, "log", "--format=%H", "main").split()
    assert [n["oid"] for n in history(world)["nodes"]] == log
    first = history(world, n=4)
    assert first["totalCount"] == len(log) and first["pageInfo"]["hasNextPage"]
    rest = history(world, n=100, after=first["pageInfo"]["endCursor"])
    assert [n["oid"] for n in first["nodes"] + rest["nodes"]] == log


def test_history_of_a_path_is_git_log_of_that_path(world: World) -> None:
    log = git(world, "log", "--format=%H", "main", "--", "src/tinykv/wal.py").split()
    assert [n["oid"] for n in history(world, path="src/tinykv/wal.py")["nodes"]] == log
    assert 0 < len(log) < len(git(world, "log", "--format=%H", "main").split())


def test_history_by_author_email_or_id_and_by_date(world: World) -> None:
    query = (
        "defaultBranchRef{target{... on Commit{"
        'e:history(first:50, author:{emails:["lee-k@users.noreply.github.com"]}){nodes{oid}}'
        "i:history(first:50, author:{id:$id}){nodes{oid}}"
        'd:history(first:50, since:"2026-01-01T00:00:00Z", until:"2026-02-05T00:00:00Z")'
        "{nodes{oid}}}}}"
    )
    found = repo(world, query, {"id": user_node_id("dana-ops")})["defaultBranchRef"]["target"]
    by_lee = git(world, "log", "--format=%H", "--author=lee-k@", "main").split()
    by_dana = git(world, "log", "--format=%H", "--author=dana-ops@", "main").split()
    between = ("--since=2026-01-01T00:00:00Z", "--until=2026-02-05T00:00:00Z")
    dated = git(world, "log", "--format=%H", *between, "main").split()
    assert [n["oid"] for n in found["e"]["nodes"]] == by_lee
    assert [n["oid"] for n in found["i"]["nodes"]] == by_dana
    assert [n["oid"] for n in found["d"]["nodes"]] == dated and dated


def test_history_by_an_unknown_user_is_not_found(world: World) -> None:
    answer = graphql(
        world,
        "{" + REPO + '{defaultBranchRef{target{... on Commit{history(first:1,author:{id:"U_x"})'
        "{totalCount}}}}}}",
    )
    assert answer["errors"][0]["type"] == "NOT_FOUND"
    assert "U_x" in answer["errors"][0]["message"]


COMMIT = (
    "oid message messageHeadline messageBody url resourcePath authoredDate committedDate "
    "author{name email date user{login}} committer{name email} authoredByCommitter "
    "parents(first:5){totalCount nodes{oid}} tree{oid} additions deletions "
    "changedFilesIfAvailable"
)


def test_a_merge_commit_and_its_fields(world: World) -> None:
    merge = git(world, "log", "--merges", "-1", "--format=%H", "main").strip()
    commit = repo(world, f"object(oid:$sha){{... on Commit{{{COMMIT}}}}}", {"sha": merge})["object"]
    message = git(world, "show", "-s", "--format=%B", merge).rstrip("\n")
    parents = git(world, "show", "-s", "--format=%P", merge).split()
    numstat = git(world, "diff", "--numstat", parents[0], merge).splitlines()
    assert commit["message"] == message
    assert commit["messageHeadline"] == message.split("\n")[0]
    assert commit["messageBody"] == message.partition("\n")[2].strip("\n")
    assert commit["url"] == f"http://github.localhost/acme-labs/tinykv/commit/{merge}"
    assert commit["resourcePath"] == f"/acme-labs/tinykv/commit/{merge}"
    assert commit["author"] == {
        "name": "Mona Lisa",
        "email": "mona@users.noreply.github.com",
        "date": "2026-02-02T09:40:00Z",
        "user": {"login": "mona"},
    }
    assert commit["authoredDate"] == commit["committedDate"] == "2026-02-02T09:40:00Z"
    assert commit["authoredByCommitter"] is True
    assert commit["parents"] == {"totalCount": 2, "nodes": [{"oid": p} for p in parents]}
    assert commit["tree"]["oid"] == git(world, "rev-parse", f"{merge}^{{tree}}").strip()
    assert commit["changedFilesIfAvailable"] == len(numstat)
    assert commit["additions"] == sum(int(line.split()[0]) for line in numstat)
    assert commit["deletions"] == sum(int(line.split()[1]) for line in numstat)


def test_blame_is_git_blame(world: World) -> None:
    query = 'object(expression:"main"){... on Commit{blame(path:"src/tinykv/store.py"){ranges{'
    query += "startingLine endingLine age commit{oid committedDate}}}}}"
    ranges = repo(world, query)["object"]["blame"]["ranges"]
    by_line = {}
    for found in ranges:
        for line in range(found["startingLine"], found["endingLine"] + 1):
            by_line[line] = found["commit"]["oid"]
    blamed = git(
        world, "blame", "--root", "-l", "-s", "main", "--", "src/tinykv/store.py"
    ).splitlines()
    assert by_line == {n: row.split()[0] for n, row in enumerate(blamed, start=1)}
    newest = max(r["commit"]["committedDate"] for r in ranges)
    assert {r["age"] for r in ranges if r["commit"]["committedDate"] == newest} == {1}
    assert all(1 <= r["age"] <= 10 for r in ranges) and len({r["age"] for r in ranges}) > 1


def test_blame_of_a_missing_file_has_no_ranges(world: World) -> None:
    query = 'object(expression:"main"){... on Commit{blame(path:"nope.txt"){ranges{age}}}}'
    assert repo(world, query)["object"]["blame"] == {"ranges": []}


def test_associated_pull_requests_of_commits(world: World) -> None:
    pull_7 = world.pull_request(7)
    pull_9 = world.pull_request(9)
    assert pull_7 is not None and pull_9 is not None and pull_9.merge_commit_sha
    query = "h:object(oid:$head){... on Commit{associatedPullRequests(first:5){nodes{number}}}} "
    query += "m:object(oid:$merge){... on Commit{associatedPullRequests(first:5){nodes{number}}}} "
    query += "f:object(oid:$fix){... on Commit{associatedPullRequests(first:5){nodes{number}}}}"
    found = repo(
        world,
        query,
        {"head": pull_7.head_sha, "merge": pull_9.merge_commit_sha, "fix": pull_9.head_sha},
    )
    numbers = {
        k: [n["number"] for n in v["associatedPullRequests"]["nodes"]] for k, v in found.items()
    }
    assert numbers == {"h": [7], "m": [9], "f": [9]}


def test_pull_request_commits_are_real_commits_with_their_authors(world: World) -> None:
    pull = repo(
        world,
        "pullRequest(number:7){commits(first:10){totalCount nodes{url pullRequest{number} "
        "commit{oid authors(first:5){nodes{name email user{login}}} author{user{login}}}}}}",
    )["pullRequest"]["commits"]
    pull_7 = world.pull_request(7)
    assert pull_7 is not None
    shas = git(world, "rev-list", "--reverse", f"main..{pull_7.head_sha}").split()
    assert [n["commit"]["oid"] for n in pull["nodes"]] == shas
    for node in pull["nodes"]:
        assert node["commit"]["authors"]["nodes"] == [
            {
                "name": "Mona Lisa",
                "email": "mona@users.noreply.github.com",
                "user": {"login": "mona"},
            }
        ]
        assert node["url"].endswith(f"/pull/7/commits/{node['commit']['oid']}")
        assert node["pullRequest"] == {"number": 7}


def test_co_authors_are_among_the_authors_and_unknown_emails_have_no_user(world: World) -> None:
    sha = commit_on(
        world,
        "main",
        {"NOTES.md": "notes\n"},
        "Add notes\n\nCo-authored-by: Lee Kim <lee-k@users.noreply.github.com>\n"
        "Co-authored-by: Someone <someone@example.com>",
    )
    found = repo(
        world,
        "object(oid:$sha){... on Commit{authors(first:5){totalCount nodes{email user{login}}}}}",
        {"sha": sha},
    )["object"]["authors"]
    assert found["totalCount"] == 3
    assert [(n["email"], n["user"]) for n in found["nodes"]] == [
        ("mona@users.noreply.github.com", {"login": "mona"}),
        ("lee-k@users.noreply.github.com", {"login": "lee-k"}),
        ("someone@example.com", None),
    ]


# ---------------------------------------------------------------- refs


def test_ref_by_qualified_or_short_name(world: World) -> None:
    found = repo(
        world,
        'a:ref(qualifiedName:"refs/heads/fix/compaction-lock"){id name prefix target{oid}} '
        'b:ref(qualifiedName:"main"){name prefix} c:ref(qualifiedName:"v0.3.2"){name prefix '
        'target{__typename}} d:ref(qualifiedName:"refs/heads/nope"){name}',
    )
    assert found["a"]["name"] == "fix/compaction-lock"
    assert found["a"]["prefix"] == "refs/heads/"
    assert found["a"]["target"]["oid"] == git(world, "rev-parse", "fix/compaction-lock").strip()
    assert found["b"] == {"name": "main", "prefix": "refs/heads/"}
    assert found["c"] == {
        "name": "v0.3.2",
        "prefix": "refs/tags/",
        "target": {"__typename": "Commit"},
    }
    assert found["d"] is None
    answer = graphql(
        world, "query($id:ID!){node(id:$id){... on Ref{name}}}", {"id": found["a"]["id"]}
    )
    assert answer["data"]["node"] == {"name": "fix/compaction-lock"}


def test_refs_by_prefix_query_and_order(world: World) -> None:
    found = repo(
        world,
        'b:refs(refPrefix:"refs/heads/", first:10){totalCount nodes{name}} '
        'q:refs(refPrefix:"refs/heads/", query:"fix", first:10){nodes{name}} '
        'd:refs(refPrefix:"refs/heads/", first:10, orderBy:{field:ALPHABETICAL, direction:DESC})'
        '{nodes{name}} t:refs(refPrefix:"refs/tags/", first:10){nodes{name prefix}}',
    )
    branches = git(world, "for-each-ref", "--format=%(refname:lstrip=2)", "refs/heads/").split()
    assert [n["name"] for n in found["b"]["nodes"]] == branches
    assert found["b"]["totalCount"] == len(branches) == 3
    assert found["q"]["nodes"] == [{"name": "fix/compaction-lock"}]
    assert [n["name"] for n in found["d"]["nodes"]] == branches[::-1]
    assert found["t"]["nodes"] == [{"name": "v0.3.2", "prefix": "refs/tags/"}]


def test_default_branch_ref_compares_and_knows_its_pull_requests(world: World) -> None:
    found = repo(
        world,
        "defaultBranchRef{name prefix target{oid} branchProtectionRule{pattern} "
        'compare(headRef:"fix/compaction-lock"){aheadBy behindBy status '
        "commits(first:10){totalCount authorCount} headTarget{oid}}} "
        'ref(qualifiedName:"fix/compaction-lock"){associatedPullRequests(first:5,states:OPEN)'
        "{nodes{number}}}",
    )
    branch = found["defaultBranchRef"]
    ahead = git(world, "rev-list", "--count", "main..fix/compaction-lock").strip()
    behind = git(world, "rev-list", "--count", "fix/compaction-lock..main").strip()
    assert (branch["name"], branch["prefix"]) == ("main", "refs/heads/")
    assert branch["target"]["oid"] == main_sha(world)
    assert branch["branchProtectionRule"] is None
    assert branch["compare"]["aheadBy"] == int(ahead)
    assert branch["compare"]["behindBy"] == int(behind)
    assert branch["compare"]["commits"] == {"totalCount": int(ahead), "authorCount": 1}
    assert found["ref"]["associatedPullRequests"]["nodes"] == [{"number": 7}]


def test_a_protected_branch_has_a_protection_rule(world: World) -> None:
    protect(world, "main")
    found = repo(
        world,
        "defaultBranchRef{branchProtectionRule{pattern requiresApprovingReviews "
        "requiredApprovingReviewCount requiresStrictStatusChecks}} "
        "branchProtectionRules(first:5){nodes{pattern}}",
    )
    assert found["defaultBranchRef"]["branchProtectionRule"] == {
        "pattern": "main",
        "requiresApprovingReviews": True,
        "requiredApprovingReviewCount": 1,
        "requiresStrictStatusChecks": False,
    }
    assert found["branchProtectionRules"]["nodes"] == [{"pattern": "main"}]


# ---------------------------------------------------------------- the repository's code


def test_languages_count_the_code_outside_the_docs(world: World) -> None:
    found = repo(world, "languages(first:10){totalSize edges{size node{name color}}}")
    listed = git(world, "ls-tree", "-r", "-l", "main").splitlines()
    python = sum(
        int(line.split()[3])
        for line in listed
        if line.endswith(".py") and not line.split("\t")[1].startswith("docs/")
    )
    assert found["languages"] == {
        "totalSize": python,
        "edges": [{"size": python, "node": {"name": "Python", "color": "#3572A5"}}],
    }


def test_repository_fields_gh_reads_when_creating_and_cloning(world: World) -> None:
    found = repo(
        world,
        "sshUrl isEmpty isFork isMirror parent{name} templateRepository{name} diskUsage "
        "mergeCommitAllowed squashMergeAllowed rebaseMergeAllowed viewerDefaultMergeMethod "
        "hasWikiEnabled isInOrganization viewerPossibleCommitEmails "
        "watchers{totalCount} pullRequestTemplates{filename} issueTemplates{name} "
        "contactLinks{name} isBlankIssuesEnabled securityPolicyUrl",
    )
    assert found["sshUrl"] == "git@github.localhost:acme-labs/tinykv.git"
    assert found["diskUsage"] > 0
    assert {k: v for k, v in found.items() if k not in ("sshUrl", "diskUsage")} == {
        "isEmpty": False,
        "isFork": False,
        "isMirror": False,
        "parent": None,
        "templateRepository": None,
        "mergeCommitAllowed": True,
        "squashMergeAllowed": True,
        "rebaseMergeAllowed": True,
        "viewerDefaultMergeMethod": "MERGE",
        "hasWikiEnabled": False,
        "isInOrganization": True,
        "viewerPossibleCommitEmails": ["bench-bot@users.noreply.github.com"],
        "watchers": {"totalCount": world.repository.watcher_count},
        "pullRequestTemplates": [],
        "issueTemplates": [],
        "contactLinks": [],
        "isBlankIssuesEnabled": True,
        "securityPolicyUrl": None,
    }


def test_community_files_on_the_default_branch(world: World) -> None:
    commit_on(
        world,
        "main",
        {
            ".github/pull_request_template.md": "## What changed\n",
            ".github/ISSUE_TEMPLATE/bug.md": "---\nname: Bug report\nabout: Something broke\n"
            "title: '[bug] '\nlabels: bug\n---\nSteps to reproduce:\n",
            ".github/ISSUE_TEMPLATE/config.yml": "blank_issues_enabled: false\ncontact_links:\n"
            "  - name: Forum\n    url: https://forum.example.com\n    about: Questions\n",
            "SECURITY.md": "Report privately.\n",
        },
    )
    found = repo(
        world,
        "pullRequestTemplates{filename body} issueTemplates{filename name about title body "
        "labels(first:5){nodes{name}}} contactLinks{name url about} isBlankIssuesEnabled "
        "securityPolicyUrl isSecurityPolicyEnabled",
    )
    assert found == {
        "pullRequestTemplates": [
            {"filename": ".github/pull_request_template.md", "body": "## What changed\n"}
        ],
        "issueTemplates": [
            {
                "filename": "bug.md",
                "name": "Bug report",
                "about": "Something broke",
                "title": "[bug] ",
                "body": "Steps to reproduce:\n",
                "labels": {"nodes": [{"name": "bug"}]},
            }
        ],
        "contactLinks": [
            {"name": "Forum", "url": "https://forum.example.com", "about": "Questions"}
        ],
        "isBlankIssuesEnabled": False,
        "securityPolicyUrl": "http://github.localhost/acme-labs/tinykv/security/policy",
        "isSecurityPolicyEnabled": True,
    }


def test_an_empty_repository_has_no_default_branch_ref(world: World) -> None:
    for name in world.git.refs():
        world.git.delete_ref(name)
    found = repo(world, "isEmpty defaultBranchRef{name} languages(first:5){totalSize}")
    assert found == {"isEmpty": True, "defaultBranchRef": None, "languages": {"totalSize": 0}}


def test_a_long_first_line_is_cut_into_the_body_as_github_shows_it(world: World) -> None:
    first = "Make compaction resumable after a crash by journaling each merged segment id"
    sha = commit_on(world, "main", {"x.txt": "x\n"}, f"{first}\n\nDetails.")
    found = repo(
        world, "object(oid:$sha){... on Commit{message messageHeadline messageBody}}", {"sha": sha}
    )["object"]
    assert len(first) > 72 and len(found["messageHeadline"]) == 72
    assert found["messageHeadline"] == first[:71] + "\u2026"
    assert found["messageBody"] == "\u2026" + first[71:] + "\n\nDetails."
    assert found["message"] == f"{first}\n\nDetails."
