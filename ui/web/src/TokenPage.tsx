import React from 'react';
import {
  ActionGroup,
  Alert,
  Bullseye,
  Button,
  Card,
  CardBody,
  CardTitle,
  Form,
  FormGroup,
  HelperText,
  HelperTextItem,
  TextInput,
} from '@patternfly/react-core';
import { checkToken, setToken } from './auth';

/** Asks once per browser session for the API token (`./rendezvous token create`, or the one `run` printed). */
export const TokenPage: React.FC = () => {
  const [value, setValue] = React.useState('');
  const [error, setError] = React.useState<string | null>(null);
  const [busy, setBusy] = React.useState(false);
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    const token = value.trim();
    if (!token) {
      setError('Enter an API token.');
      return;
    }
    setBusy(true);
    try {
      const problem = await checkToken(token);
      if (problem) setError(problem);
      else setToken(token);
    } catch {
      setError('The service cannot be reached.');
    } finally {
      setBusy(false);
    }
  };
  return (
    <Bullseye className="rdv-token-page">
      <Card>
        <CardTitle>Rendezvous</CardTitle>
        <CardBody>
          <Form onSubmit={submit} id="rdv-token-form">
            <FormGroup label="API token" isRequired fieldId="rdv-token">
              <TextInput
                id="rdv-token"
                type="password"
                autoComplete="off"
                value={value}
                onChange={(_e, v) => setValue(v)}
                validated={error ? 'error' : 'default'}
              />
              <HelperText>
                <HelperTextItem>
                  The token <code>./rendezvous run</code> printed at start, or one from{' '}
                  <code>./rendezvous token create --tenant NAME</code>. It is kept for this browser session only.
                </HelperTextItem>
              </HelperText>
            </FormGroup>
            {error && <Alert variant="danger" isInline isPlain title={error} />}
            <ActionGroup>
              <Button type="submit" variant="primary" isLoading={busy} isDisabled={busy}>
                Log in
              </Button>
            </ActionGroup>
          </Form>
        </CardBody>
      </Card>
    </Bullseye>
  );
};
