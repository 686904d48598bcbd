/**
 * The panel's own small set of components. This is the only file that knows the controls come from
 * @vscode/webview-ui-toolkit: the views build their HTML with these helpers and read or change the
 * controls through them, so swapping the toolkit for another (or for plain elements) changes this
 * file only.
 */
import {
  provideVSCodeDesignSystem, vsCodeButton, vsCodeDropdown, vsCodeOption, vsCodeTextField, vsCodeTextArea, vsCodeTag,
  vsCodeProgressRing, vsCodeDivider,
} from '@vscode/webview-ui-toolkit';
import { escapeHtml } from './markdown';

provideVSCodeDesignSystem().register(
  vsCodeButton(), vsCodeDropdown(), vsCodeOption(), vsCodeTextField(), vsCodeTextArea(), vsCodeTag(), vsCodeProgressRing(),
  vsCodeDivider(),
);

type Attrs = Record<string, string | number | boolean | undefined>;
const attrs = (a: Attrs = {}) => Object.entries(a)
  .filter(([, v]) => v !== undefined && v !== false)
  .map(([k, v]) => (v === true ? ` ${k}` : ` ${k}="${escapeHtml(String(v))}"`)).join('');

export const ui = {
  textField: (id: string, placeholder: string, a: Attrs = {}) => `<vscode-text-field id="${id}" placeholder="${escapeHtml(placeholder)}"${attrs(a)}></vscode-text-field>`,
  textArea: (id: string, placeholder: string, rows: number, a: Attrs = {}) =>
    `<vscode-text-area id="${id}" placeholder="${escapeHtml(placeholder)}" rows="${rows}" resize="vertical"${attrs(a)}></vscode-text-area>`,
  dropdown: (id: string, options: { value: string; label: string }[], a: Attrs = {}) =>
    `<vscode-dropdown id="${id}"${attrs(a)}>${ui.options(options)}</vscode-dropdown>`,
  options: (options: { value: string; label: string }[]) =>
    options.map((o) => `<vscode-option value="${escapeHtml(o.value)}">${escapeHtml(o.label)}</vscode-option>`).join(''),
  button: (id: string, label: string, a: Attrs & { secondary?: boolean } = {}) => {
    const { secondary, ...rest } = a;
    return `<vscode-button id="${id}"${secondary ? ' appearance="secondary"' : ''}${attrs(rest)}>${escapeHtml(label)}</vscode-button>`;
  },
  /** A small icon-only button (codicon-like text glyph) for toolbars. */
  iconButton: (id: string, glyph: string, title: string) =>
    `<vscode-button id="${id}" appearance="icon" title="${escapeHtml(title)}" aria-label="${escapeHtml(title)}">${glyph}</vscode-button>`,
  tag: (html: string, a: Attrs = {}) => `<vscode-tag${attrs(a)}>${html}</vscode-tag>`,
  progress: () => '<vscode-progress-ring></vscode-progress-ring>',
  divider: () => '<vscode-divider></vscode-divider>',
};

type Field = HTMLElement & { value: string };

/** The value of a text field, text area or dropdown. */
export function valueOf(id: string): string {
  return (document.getElementById(id) as Field | null)?.value ?? '';
}

export function setValue(id: string, value: string): void {
  const el = document.getElementById(id) as Field | null;
  if (el) el.value = value;
}

/** Moves the keyboard into a field (the toolkit's input lives in its shadow root). */
export function focusField(id: string): void {
  requestAnimationFrame(() => {
    const host = document.getElementById(id);
    ((host?.shadowRoot?.querySelector('input, textarea') as HTMLElement | null) ?? host)?.focus();
  });
}

export function setDisabled(id: string, disabled: boolean): void {
  document.getElementById(id)?.toggleAttribute('disabled', disabled);
}

/** Replaces a dropdown's options, keeping the chosen value when it is still offered. */
export function setOptions(id: string, options: { value: string; label: string }[], chosen?: string): void {
  const el = document.getElementById(id) as Field | null;
  if (!el) return;
  el.innerHTML = ui.options(options);
  if (chosen && options.some((o) => o.value === chosen)) requestAnimationFrame(() => { el.value = chosen; });
}

export function setPlaceholder(id: string, text: string): void {
  document.getElementById(id)?.setAttribute('placeholder', text);
}
