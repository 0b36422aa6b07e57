import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import translation from '@openshift-assisted/locales/en/translation.json';

// The library's strings are keyed by their English text ('ai:Cluster name'): no key separator, '~' for namespaces.
void i18n.use(initReactI18next).init({
  lng: 'en',
  fallbackLng: 'en',
  supportedLngs: ['en'],
  resources: { en: { translation } },
  defaultNS: 'translation',
  nsSeparator: '~',
  keySeparator: false,
  interpolation: { escapeValue: false },
  react: { useSuspense: true, transSupportBasicHtmlNodes: true },
});

export default i18n;
