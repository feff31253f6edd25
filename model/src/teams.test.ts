import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { BoardDefinitionSchema } from "@ladder/proto/leaderboard/v1/admin_pb";
import { PeriodKind, TeamCombine } from "@ladder/proto/leaderboard/v1/common_pb";
import { normalizeDefinition, specOfDefinition } from "./board-definitions.js";
import { teamRuleProblem } from "./teams.js";
import { teamIdProblem } from "./validate.js";

const define = (rules: object) => normalizeDefinition(create(BoardDefinitionSchema, { name: "clans", rules }), Date.UTC(2026, 11, 6));

describe("teams > rules", () => {
  it("names the field and its limit of a bad rule", () => {
    expect(teamRuleProblem({ source: "", combine: "sum", bestK: 0 })).toBe(
      "team.source: name the board whose entries are the members' points",
    );
    expect(teamRuleProblem({ source: "solo", combine: "best", bestK: 0 })).toBe(
      "team.best_k must be 1 to 1000 with TEAM_COMBINE_BEST, got 0",
    );
    expect(teamRuleProblem({ source: "solo", combine: "sum", bestK: 3 })).toBe("team.best_k is only for TEAM_COMBINE_BEST, got 3");
    expect(teamRuleProblem({ source: "solo", combine: "best", bestK: 3 })).toBeUndefined();
  });

  it("defines an all-time team board and refuses periods, leagues and retention", () => {
    const { definition, problems } = define({ team: { source: "solo", combine: TeamCombine.BEST, bestK: 3 } });
    expect(problems).toEqual([]);
    expect(specOfDefinition(definition!).team).toEqual({ source: "solo", combine: "best", bestK: 3 });
    expect(specOfDefinition(define({ team: { source: "solo" } }).definition!).team).toEqual({ source: "solo", combine: "sum", bestK: 0 });
    expect(define({ team: { source: "solo" }, period: PeriodKind.DAILY }).problems).toEqual([
      "a team board is all-time (no periods): its teams' points follow their members' all-time points",
    ]);
    expect(define({ team: { source: "solo" }, keepTop: 10 }).problems).toEqual(["a team board takes no keep_top nor expire_inactive_ms"]);
    expect(define({ team: { source: "bad name!" } }).problems[0]).toMatch(/^team.source: board may contain only/);
  });

  it("takes team ids by the rules of player ids, naming the field", () => {
    expect(teamIdProblem("red")).toBeUndefined();
    expect(teamIdProblem(" red")).toBe("team_id starts or ends with whitespace");
    expect(teamIdProblem("")).toMatch(/^team_id is empty/);
  });
});
