/**
 * Contract kit for ShareLinksRepository (ports/files/ShareLinksRepository.ts): the repository
 * makes a fresh high-entropy token per link and stores only its hash (lookup by the token works;
 * the stored value is not the token and does not work as one); every link expires (the kit's links
 * carry an expiry after their creation, and a link without one is refused, nothing stored); a
 * node's links list newest first,
 * only under its workspace; revoking happens once, only for the link's own node and workspace,
 * and a revoked link found by its token carries its revocation (and its expiry), which is what
 * the core's `resolveShare` refuses with 404; a link is found by its id (grant checks) under its
 * workspace only.
 */
import { Effect } from "effect";
import { ShareLinkId, type NodeId, type WorkspaceId } from "../../../core/files/model/Ids.js";
import type { ShareLink } from "../../../core/files/model/ShareLink.js";
import type { NodesRepository } from "../../../ports/files/NodesRepository.js";
import { ShareLinksRepository } from "../../../ports/files/ShareLinksRepository.js";
import { at, exitOf, runCases, type KitCase, type SuiteOptions } from "../Kit.js";
import { driveKitId } from "./DriveRepositoryKit.js";
import { nodeRecord, seedDrive, seedNode, type DriveSeedPorts } from "./fixtures.js";

/** The ports this kit needs: the repository, and the drive and node its links reach. */
export type ShareLinksRepositoryKitPorts = ShareLinksRepository | NodesRepository | DriveSeedPorts;

const shareLinks = <A>(f: (r: ShareLinksRepository) => Effect.Effect<A>) => Effect.flatMap(ShareLinksRepository, f);

/** Share link id `n` (kind digit 6). */
export const shareLinkKitId = (n: number): ShareLinkId => ShareLinkId.make(driveKitId(6, n));

/** How long after its creation a kit link expires unless a case gives its own expiry (every link expires). */
export const shareLinkKitLifetimeMs = 30 * 24 * 3600 * 1000;

/** The fields of link `n` on `nodeId`, created at `at(n)`, expiring `shareLinkKitLifetimeMs` later unless given `expiresAt`. */
export const shareLinkFields = (workspaceId: WorkspaceId, nodeId: NodeId, n: number, expiresAt: Date = at(n + shareLinkKitLifetimeMs)): Omit<ShareLink, "tokenHash"> => ({
  id: shareLinkKitId(n),
  workspaceId,
  nodeId,
  allowDownload: n % 2 === 1,
  createdBy: "kit-user",
  createdAt: at(n),
  expiresAt,
  revokedAt: null,
});

/** Drive `n` with folder `n` in its root. */
const seedFolder = (n: number) =>
  Effect.gen(function* () {
    const { workspaceId, root } = yield* seedDrive(n);
    const folder = yield* seedNode(nodeRecord(workspaceId, n, root.id, `Shared ${n}`));
    return { workspaceId, folder };
  });

/** The cases of the ShareLinksRepository kit. */
export const shareLinksRepositoryCases: ReadonlyArray<KitCase<ShareLinksRepositoryKitPorts>> = [
  {
    name: "share links: a link is found by its token; only a hash is stored, and it does not work as a token",
    run: async (t, run) => {
      const { workspaceId, folder } = await run(seedFolder(1));
      const fields = shareLinkFields(workspaceId, folder.id, 1, at(86_400_000));
      const { link, token } = await run(shareLinks((r) => r.create(fields)));
      t.same({ ...link, tokenHash: undefined }, { ...fields, tokenHash: undefined }, "the link as given");
      t.ok(token.length >= 32, "a high-entropy token");
      t.not(link.tokenHash, token, "the stored value is not the token");
      t.notOk(link.tokenHash.includes(token), "nor contains it");
      t.same(await run(shareLinks((r) => r.findByToken(token))), link, "the token finds its link");
      t.equal(await run(shareLinks((r) => r.findByToken(link.tokenHash))), null, "the stored hash is no token");
      t.equal(await run(shareLinks((r) => r.findByToken(`${token}x`))), null, "nor is another string");
      const listed = await run(shareLinks((r) => r.listForNode(workspaceId, folder.id)));
      t.notOk(JSON.stringify(listed).includes(token), "listing never shows the token");
      const second = await run(shareLinks((r) => r.create(shareLinkFields(workspaceId, folder.id, 2))));
      t.not(second.token, token, "each link has its own token");
      t.equal((await run(shareLinks((r) => r.findByToken(second.token))))?.id, second.link.id);
    },
  },
  {
    name: "share links: every link expires: a link without an expiry is refused and nothing is stored",
    run: async (t, run) => {
      const { workspaceId, folder } = await run(seedFolder(1));
      const exit = await run(exitOf(shareLinks((r) => r.create({ ...shareLinkFields(workspaceId, folder.id, 1), expiresAt: null }))));
      t.equal(exit._tag, "Failure", "refused");
      t.equal(await run(shareLinks((r) => r.find(workspaceId, shareLinkKitId(1)))), null, "nothing stored");
      t.same(await run(shareLinks((r) => r.listForNode(workspaceId, folder.id))), [], "nor listed");
    },
  },
  {
    name: "share links: a node's links list newest first, only under its workspace and node",
    run: async (t, run) => {
      const { workspaceId, folder } = await run(seedFolder(1));
      const other = await run(seedFolder(2));
      for (const n of [1, 2, 3]) await run(shareLinks((r) => r.create(shareLinkFields(workspaceId, folder.id, n))));
      await run(shareLinks((r) => r.create(shareLinkFields(other.workspaceId, other.folder.id, 4))));
      t.same((await run(shareLinks((r) => r.listForNode(workspaceId, folder.id)))).map((l) => l.id), [shareLinkKitId(3), shareLinkKitId(2), shareLinkKitId(1)]);
      t.same(await run(shareLinks((r) => r.listForNode(other.workspaceId, folder.id))), [], "not under another workspace");
      t.same((await run(shareLinks((r) => r.listForNode(other.workspaceId, other.folder.id)))).map((l) => l.id), [shareLinkKitId(4)]);
    },
  },
  {
    name: "share links: a node's links come in keyset pages, newest first (by id), after an exclusive id cursor, at most the limit, only the node's own under its workspace, revoked ones included",
    run: async (t, run) => {
      const { workspaceId, folder } = await run(seedFolder(1));
      const other = await run(seedFolder(2));
      const sibling = await run(seedNode(nodeRecord(workspaceId, 3, folder.parentId!, "Sibling")));
      // Created out of id order: the page order is the id's, not the insertion's.
      for (const n of [3, 1, 5, 2, 4]) await run(shareLinks((r) => r.create(shareLinkFields(workspaceId, folder.id, n))));
      await run(shareLinks((r) => r.create(shareLinkFields(workspaceId, sibling.id, 6))));
      await run(shareLinks((r) => r.create(shareLinkFields(other.workspaceId, other.folder.id, 7))));
      await run(shareLinks((r) => r.revoke(workspaceId, folder.id, shareLinkKitId(2), at(20))));
      await run(shareLinks((r) => r.create(shareLinkFields(workspaceId, folder.id, 8, at(9)))));
      const page = (afterId: string | null, limit: number, ws: string = workspaceId, nodeId: string = folder.id) => run(shareLinks((r) => r.pageForNode(ws, nodeId, afterId, limit)));
      const linkIds = (list: ReadonlyArray<ShareLink>) => list.map((l) => l.id);
      const first = await page(null, 2);
      t.same(linkIds(first), [shareLinkKitId(8), shareLinkKitId(5)], "the newest ids first, at most the limit");
      const second = await page(first[first.length - 1]!.id, 2);
      t.same(linkIds(second), [shareLinkKitId(4), shareLinkKitId(3)], "continued after the cursor, which is exclusive");
      const third = await page(second[second.length - 1]!.id, 2);
      t.same(linkIds(third), [shareLinkKitId(2), shareLinkKitId(1)], "a revoked link is listed too");
      t.same(third[0]?.revokedAt, at(20), "with its revocation");
      t.same(await page(shareLinkKitId(1), 2), [], "nothing after the oldest link");
      t.same(await page(null, 10), await run(shareLinks((r) => r.listForNode(workspaceId, folder.id))), "one page holding them all answers what listForNode does");
      t.same((await page(null, 10)).find((l) => l.id === shareLinkKitId(8))?.expiresAt, at(9), "a link with its own (earlier) expiry is listed with it");
      t.same(linkIds(await page(null, 1)), [shareLinkKitId(8)], "a limit of 1");
      t.same(linkIds(await page(shareLinkKitId(9), 3)), [shareLinkKitId(8), shareLinkKitId(5), shareLinkKitId(4)], "a cursor that is no link's id still positions the page");
      t.same(linkIds(await page(null, 10, workspaceId, sibling.id)), [shareLinkKitId(6)], "another node's links are its own");
      t.same(await page(null, 10, other.workspaceId, folder.id), [], "not under another workspace");
      t.same(linkIds(await page(null, 10, other.workspaceId, other.folder.id)), [shareLinkKitId(7)], "the other workspace's node has its own");
    },
  },
  {
    name: "share links: revoking happens once, only through the link's own workspace and node; a revoked or expired link carries it when found",
    run: async (t, run) => {
      const { workspaceId, folder } = await run(seedFolder(1));
      const other = await run(seedFolder(2));
      const { link, token } = await run(shareLinks((r) => r.create(shareLinkFields(workspaceId, folder.id, 1))));
      t.equal(await run(shareLinks((r) => r.revoke(other.workspaceId, folder.id, link.id, at(10)))), false, "not through another workspace");
      t.equal(await run(shareLinks((r) => r.revoke(workspaceId, other.folder.id, link.id, at(10)))), false, "not through another node");
      t.equal((await run(shareLinks((r) => r.findByToken(token))))?.revokedAt, null, "still live");
      t.equal(await run(shareLinks((r) => r.revoke(workspaceId, folder.id, link.id, at(20)))), true);
      t.equal(await run(shareLinks((r) => r.revoke(workspaceId, folder.id, link.id, at(30)))), false, "no live link to revoke again");
      t.same((await run(shareLinks((r) => r.findByToken(token))))?.revokedAt, at(20), "found with its revocation, so it is refused");
      const expiring = await run(shareLinks((r) => r.create(shareLinkFields(workspaceId, folder.id, 2, at(40)))));
      t.same((await run(shareLinks((r) => r.findByToken(expiring.token))))?.expiresAt, at(40), "found with its expiry");
    },
  },
  {
    name: "share links: a link is found by its id only under its workspace, with its revocation (what a download grant through it is checked against)",
    run: async (t, run) => {
      const { workspaceId, folder } = await run(seedFolder(1));
      const other = await run(seedFolder(2));
      const { link } = await run(shareLinks((r) => r.create(shareLinkFields(workspaceId, folder.id, 1))));
      t.same(await run(shareLinks((r) => r.find(workspaceId, link.id))), link, "found by id");
      t.equal(await run(shareLinks((r) => r.find(other.workspaceId, link.id))), null, "not under another workspace");
      t.equal(await run(shareLinks((r) => r.find(workspaceId, shareLinkKitId(9)))), null, "an unknown id is null");
      await run(shareLinks((r) => r.revoke(workspaceId, folder.id, link.id, at(20))));
      t.same((await run(shareLinks((r) => r.find(workspaceId, link.id))))?.revokedAt, at(20), "found with its revocation");
    },
  },
];

/** Runs the ShareLinksRepository kit. */
export const shareLinksRepositorySuite = (options: SuiteOptions<ShareLinksRepositoryKitPorts>): Promise<unknown> => runCases(options, shareLinksRepositoryCases);
