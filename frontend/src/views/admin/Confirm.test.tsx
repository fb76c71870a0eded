// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, render } from '@testing-library/react';
import { ConfirmAction } from './Confirm';

afterEach(cleanup);

describe('ConfirmAction', () => {
  it('asks in a dialog that takes the focus, and Escape or Cancel leave everything as it was', () => {
    const onConfirm = vi.fn();
    const { getByTestId, queryByRole, getByRole } = render(
      <ConfirmAction label="Delete" title="Delete QOS gold?" message="Jobs can no longer ask for it." testId="del" onConfirm={onConfirm} />);
    const button = getByTestId('del');
    button.focus();
    fireEvent.click(button);
    const dialog = getByRole('dialog');
    expect(dialog.getAttribute('aria-modal')).toBe('true');
    expect(dialog.getAttribute('aria-labelledby') && document.getElementById(dialog.getAttribute('aria-labelledby')!)?.textContent).toBe('Delete QOS gold?');
    expect(document.getElementById(dialog.getAttribute('aria-describedby')!)?.textContent).toBe('Jobs can no longer ask for it.');
    expect(dialog.contains(document.activeElement)).toBe(true);
    expect(document.activeElement).toBe(getByTestId('del-abort'));

    fireEvent.keyDown(document.activeElement!, { key: 'Escape' });
    expect(queryByRole('dialog')).toBeNull();
    expect(document.activeElement).toBe(button);

    fireEvent.click(button);
    fireEvent.click(getByTestId('del-abort'));
    expect(queryByRole('dialog')).toBeNull();
    expect(onConfirm).not.toHaveBeenCalled();
  });

  it('keeps Tab inside the dialog and acts once confirmed', async () => {
    const onConfirm = vi.fn();
    const { getByTestId, queryByRole } = render(<ConfirmAction label="Delete" title="Delete?" testId="del" onConfirm={onConfirm} />);
    fireEvent.click(getByTestId('del'));
    const [abort, confirm] = [getByTestId('del-abort'), getByTestId('del-confirm')];
    confirm.focus();
    fireEvent.keyDown(confirm, { key: 'Tab' });
    expect(document.activeElement).toBe(abort);
    fireEvent.keyDown(abort, { key: 'Tab', shiftKey: true });
    expect(document.activeElement).toBe(confirm);
    await act(async () => { fireEvent.click(confirm); });
    expect(onConfirm).toHaveBeenCalledTimes(1);
    expect(queryByRole('dialog')).toBeNull();
  });
});
