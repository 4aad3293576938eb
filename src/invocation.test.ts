import { expect, test } from 'bun:test';
import { commandLine } from './invocation';

test('the command of this install: the binary by its name, the sources through bun from the working directory, with the --config given', () => {
  expect(commandLine('/$bunfs/root/islet', 'admin-token reset', undefined)).toBe('islet admin-token reset');
  expect(commandLine('/srv/islet/src/main.ts', 'admin-token reset', undefined, '/srv/islet')).toBe('npx bun src/main.ts admin-token reset');
  expect(commandLine('/srv/islet/src/main.ts', 'admin-token reset', 'my islet.toml', '/srv/islet')).toBe('npx bun src/main.ts admin-token reset --config "my islet.toml"');
  expect(commandLine('/$bunfs/root/islet', 'admin-token reset', '/etc/islet.toml')).toBe('islet admin-token reset --config /etc/islet.toml');
});
