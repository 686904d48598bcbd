import * as vscode from 'vscode';
import { readSettings, type LoupeSettings } from '../protocol/settings';

export function currentSettings(): LoupeSettings {
  const config = vscode.workspace.getConfiguration('loupe');
  return readSettings((key) => config.get(key));
}
