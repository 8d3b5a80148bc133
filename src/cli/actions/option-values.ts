/**
 * The fixed values of command options: a command's help lists them (commands/) and its action
 * checks them (actions/). Kept apart so that help loads no action.
 */

/** `deflow quote --format`. */
export const QUOTE_FORMATS = ['table', 'json', 'markdown'] as const;

/** `deflow completion <shell>`. */
export const SHELLS = ['bash', 'zsh', 'fish'] as const;
