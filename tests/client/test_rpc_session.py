"""`heapleak-client rpc`: examples/session.jsonl (relative paths, run from the
repository root) on a private daemon; Content-Length framed requests on stdin
without initialize, a batch, --notifications, an error reply, bad input."""
from client_helper import *

SESSION = os.path.join(SOURCE, "examples", "session.jsonl")


def frame(message):
    body = json.dumps(message).encode()
    return "Content-Length: %d\r\n\r\n%s" % (len(body), body.decode())


def lines_of(result):
    return [json.loads(line) for line in result.stdout.splitlines()]


def test():
    r = expect(["--spawn", "rpc", SESSION], OK, "rpc examples/session.jsonl", socket=None, cwd=SOURCE)
    replies = lines_of(r)
    check([m.get("id") for m in replies] == list(range(1, 14)), "one response per request, in order", r)
    check(all("error" not in m for m in replies), "no error replies", r)
    by_id = {m["id"]: m["result"] for m in replies}
    check(by_id[1]["serverInfo"]["name"] == "heapleakd", "the file's own initialize is answered")
    check(by_id[2]["path"] == H1, "relative loadHeap paths are made absolute")
    check(by_id[6]["groups"][0]["count"] == 53, "stats finds the 53 objects")
    check(by_id[7]["retainer"] == ARRAY, "root finds Leaky.@leak")
    check(by_id[8]["path"] == ROOT_PATH + [ARRAY], "pathToRoot")
    check(by_id[13] is None, "shutdown answers null")

    stdin = "".join(frame(m) for m in [
        {"jsonrpc": "2.0", "id": "a", "method": "loadHeap", "params": {"path": H1, "workDoneToken": "t1"}},
        {"jsonrpc": "2.0", "id": "b", "method": "object", "params": {"heap": "nope", "address": "0x1"}},
    ])
    stdin += json.dumps([{"jsonrpc": "2.0", "id": "c", "method": "listHeaps"},
                         {"jsonrpc": "2.0", "id": "d", "method": "referrers",
                          "params": {"heap": "h1", "address": "0x1"}}]) + "\n"
    r = expect(["rpc", "-", "--notifications"], OK, "rpc from stdin", input=stdin)
    messages = lines_of(r)
    responses = [m for m in messages if "id" in m]
    check([m["id"] for m in responses] == ["a", "b", "c", "d"], "auto-initialize is not printed", r)
    check(any(m.get("method") == "$/progress" and m["params"]["token"] == "t1" for m in messages),
          "--notifications prints $/progress", r)
    check(responses[1]["error"]["code"] == -32803 and responses[1]["error"]["data"]["reason"] == "unknownHeap",
          "error replies are printed as they are", r)
    check(len(responses[2]["result"]["heaps"]) == 1, "the batch's listHeaps")
    check(responses[3]["error"]["data"]["reason"] == "unknownAddress", "the batch's second reply")

    r = expect(["rpc", "-"], OK, "without --notifications", input='{"jsonrpc":"2.0","id":1,"method":"listHeaps"}\n')
    check(len(r.stdout.splitlines()) == 1, "only responses", r)
    expect(["rpc", "-"], USAGE, "input that is not JSON", input="loadHeap please\n")
    expect(["stop"], OK, "stop")


main(test)
