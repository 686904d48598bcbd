import type { GraphFileRow } from '../store/analysis-store';
import { majorityPackage } from '../indexer/tree-sitter/go-names';

const dirOf = (p: string) => p.slice(0, Math.max(0, p.lastIndexOf('/')));
const isTest = (p: string) => p.endsWith('_test.go');

/**
 * Go packages over the indexed files. A Go import names a package, i.e. a folder: the importing file
 * depends on every file of it. A package's files are the folder's `.go` files, tests aside, whose package
 * clause is the package's name: the clause most of them declare (a tie goes to the folder's name, then to
 * the first in alphabetical order), so a `package main` generator kept beside a library (`//go:build
 * ignore`) is not one of them. Build constraints do not matter: a file is a member on every platform.
 */
export class GoPackages {
  private readonly byDir = new Map<string, number[]>();

  constructor(private readonly files: GraphFileRow[]) {
    const candidates = new Map<string, number[]>();
    files.forEach((f, i) => {
      if (f.language !== 'go' || isTest(f.path)) return;
      const dir = dirOf(f.path);
      (candidates.get(dir) ?? candidates.set(dir, []).get(dir)!).push(i);
    });
    for (const [dir, list] of candidates) {
      const name = majorityPackage(dir, list.map((i) => files[i].unit));
      this.byDir.set(dir, list.filter((i) => files[i].unit === name));
    }
  }

  /** The files of the package in the folder of file `index` (which may itself be one of them or not). */
  packageOf(index: number): readonly number[] {
    return this.byDir.get(dirOf(this.files[index].path)) ?? [];
  }

  /** A `_test.go` file declaring its folder's package (not `…_test`): compiled with it, so it uses each of its files. */
  isInternalTest(index: number): boolean {
    const f = this.files[index];
    if (f.language !== 'go' || !isTest(f.path)) return false;
    const members = this.packageOf(index);
    return members.length > 0 && this.files[members[0]].unit === f.unit;
  }
}
